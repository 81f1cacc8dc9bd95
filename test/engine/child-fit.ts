// Child-process half of the determinism test: fits the seeded synthetic table in a fresh Node
// process and prints the SHA-256 of the model bytes and of the scored p values, as one JSON line.
import { loadEngine, scoreCases } from '../../host/engine/index.ts';
import { casesOf, fit, sha256, syntheticFixture } from './helpers.ts';

const [rows, cols, seed] = process.argv.slice(2).map(Number);
const f = syntheticFixture(rows, cols, seed);
const result = await fit(f);
if (!result.model) throw new Error(`no model: ${result.state}`);
const p = scoreCases(await loadEngine(), result.model, casesOf(f)).p;
process.stdout.write(`${JSON.stringify({ model: sha256(result.model.toBytes()), p: sha256(p) })}\n`);

// The OpContext the preview hands to the service's own answer code (scoring.ts, answers.ts): on that
// path only `services.engine` is read (Verdicts are not signed in the preview), so nothing else exists.
import type { EngineModule } from '../../engine/wasm.ts';
import type { OpContext, Services } from '../../services.ts';

export function previewContext(engine: EngineModule): OpContext {
  const services = {
    engine,
    now: () => Date.now(),
  } as Partial<Services> as Services;
  return { services, caller: null, requestId: 'preview', clientAddress: '' };
}

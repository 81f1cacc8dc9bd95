// Installs the bench-only Debian packages (Python peers, R dataset packages) when they are missing: apt-get as
// root, waiting for a dpkg lock another process holds, `apt-get update` once when a package is not found.
// Never throws: what could not be installed is returned with the reason, and the bench reports it as absent.
import { spawnSync } from 'node:child_process';

export interface DebianInstall {
  /** Packages that were already installed. */
  present: string[];
  /** Packages this call installed. */
  installed: string[];
  /** Packages still missing, with why. */
  missing: Array<{ name: string; reason: string }>;
}

/** The installed version of a Debian package, or null when it is not installed. */
export function debianVersion(name: string): string | null {
  const r = spawnSync('dpkg-query', ['-W', '-f=${Status}\t${Version}', name], { encoding: 'utf8' });
  if (r.status !== 0) return null;
  const [status, version] = r.stdout.split('\t');
  return /install ok installed/.test(status) ? version : null;
}

function aptGet(args: string[], log: (l: string) => void): { ok: boolean; output: string } {
  // DPkg::Lock::Timeout: another helper or CI step may be installing at the same time; wait for its lock.
  const r = spawnSync('apt-get', ['-o', 'DPkg::Lock::Timeout=600', ...args], {
    encoding: 'utf8',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    timeout: 1_200_000,
    maxBuffer: 1 << 26,
  });
  const output = `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? r.error.message : ''}`;
  if (r.status !== 0) log(`apt-get ${args.join(' ')} failed: ${output.trim().split('\n').slice(-2).join(' | ')}`);
  return { ok: r.status === 0, output };
}

/**
 * Makes sure `names` are installed. Off when `enabled` is false (BENCH_INSTALL=0), when not root, or when
 * apt-get is absent: then missing packages are only reported.
 */
export function ensureDebianPackages(names: string[], log: (l: string) => void, enabled = true): DebianInstall {
  const wanted = [...new Set(names)];
  const present = wanted.filter((n) => debianVersion(n) !== null);
  const absent = wanted.filter((n) => !present.includes(n));
  const result: DebianInstall = { present, installed: [], missing: [] };
  if (absent.length === 0) return result;
  const why = !enabled
    ? 'not installed (BENCH_INSTALL=0)'
    : process.getuid?.() !== 0
      ? 'not installed (the bench installs Debian packages only when run as root)'
      : spawnSync('apt-get', ['--version']).status !== 0
        ? 'not installed (no apt-get on this machine)'
        : null;
  if (why) {
    result.missing = absent.map((name) => ({ name, reason: why }));
    return result;
  }
  log(`installing Debian packages: ${absent.join(' ')}`);
  const install = () => aptGet(['install', '-y', '--no-install-recommends', ...absent], log);
  let r = install();
  // A machine whose package lists were never fetched (or are stale) finds nothing: update once, try again.
  if (!r.ok && /Unable to locate package|has no installation candidate|404\s+Not Found|Failed to fetch/.test(r.output)) {
    if (aptGet(['update'], log).ok) r = install();
  }
  // apt-get installs all or nothing: when one name cannot be had, the others still can, one at a time.
  const reasons = new Map<string, string>();
  if (!r.ok && absent.length > 1)
    for (const name of absent) {
      const one = aptGet(['install', '-y', '--no-install-recommends', name], log);
      if (!one.ok) reasons.set(name, one.output.trim().split('\n').pop() ?? '');
    }
  for (const name of absent) {
    if (debianVersion(name) !== null) result.installed.push(name);
    else result.missing.push({ name, reason: `apt-get install failed: ${reasons.get(name) ?? r.output.trim().split('\n').pop() ?? ''}` });
  }
  return result;
}

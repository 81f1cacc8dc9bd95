// Where the command line writes: stdout for results, stderr for progress and problems. `live` is a
// terminal (redraw in place); `colour` is a terminal without NO_COLOR (https://no-color.org).

export interface Stream {
  write(text: string): void;
  live: boolean;
  colour: boolean;
}

export interface Io {
  out: Stream;
  err: Stream;
  env: NodeJS.ProcessEnv;
}

export function processIo(): Io {
  const wrap = (s: NodeJS.WriteStream): Stream => ({
    write: (t) => void s.write(t),
    live: s.isTTY === true && process.env.TERM !== 'dumb',
    colour: s.isTTY === true && !process.env.NO_COLOR && process.env.TERM !== 'dumb',
  });
  return { out: wrap(process.stdout), err: wrap(process.stderr), env: process.env };
}

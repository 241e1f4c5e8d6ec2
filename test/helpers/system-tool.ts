/**
 * Tests that need a program only CI installs (Docker, chromium, prometheus): outside CI they are pending with a
 * title that says what is missing and how to get it; under `CI=true` the program is required.
 */
import { spawnSync } from 'node:child_process';

/** Where `name` is on the PATH (`command -v`), or `undefined`. */
export function which(name: string): string | undefined {
  const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  const path = found.stdout.trim();
  return found.status === 0 && path !== '' ? path : undefined;
}

/**
 * The path of a program the suite needs. Under `CI=true` a missing one fails the suite (`.ci/run` installs it);
 * otherwise `undefined`, and the caller registers a pending test saying `needs NAME (apt-get install PACKAGE)`.
 */
export function requiredInCi(name: string, aptPackage: string): string | undefined {
  const path = which(name);
  if (path === undefined && process.env.CI === 'true') {
    throw new Error(`${name} is required under CI=true: apt-get install -y ${aptPackage} (.ci/run does)`);
  }
  return path;
}

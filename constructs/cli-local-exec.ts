import * as path from 'node:path';
import { type DataResource, Lazy, type LocalExecProvisioner } from 'cdktf';
import { packageRoot } from '../src/package-info';

/**
 * A `local-exec` running this package's CLI (`args`, then `command`) on the deploying machine, with `environment`
 * besides the deploy's own.
 */
export function cliLocalExec(
  args: readonly string[],
  command: string,
  environment: () => Record<string, string> = () => ({}),
): LocalExecProvisioner {
  return {
    type: 'local-exec',
    interpreter: ['node', path.join(packageRoot(__dirname), 'dist', 'src', 'cli', 'main.js'), ...args],
    command,
    // a token: resolved at synthesis, once the stack has its provider whatever the order of construction
    environment: Lazy.anyValue({ produce: environment }) as unknown as Record<string, string>,
  };
}

/** Without the "Executing: [...]" line: the deploy prints only a failure's reason. */
export function quietLocalExec(resource: DataResource): void {
  resource.addOverride('provisioner.0.local-exec.quiet', true);
}

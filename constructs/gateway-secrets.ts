import { Annotations, Token } from 'cdktf';
import { Construct } from 'constructs';
import { secretNameProblem } from '../src/config';
import type { Service } from './service';

/**
 * The secret values a gateway is given (`Gateway.secrets`) for its services' secret references: checked once,
 * then handed to the gateway as the file `/run/secrets/NAME` (an uploaded file of a container, a Docker secret of
 * a Swarm service), never as an environment variable, which `docker inspect` would show.
 */
export class GatewaySecrets {
  private readonly values: ReadonlyMap<string, string>;

  /**
   * @param values name → value; a value should be a sensitive `TerraformVariable` (a token), a literal string is
   * written into the synthesized JSON and the Terraform state (a synth warning says so)
   */
  public constructor(
    private readonly scope: Construct,
    values: Readonly<Record<string, string>> | undefined,
    fail: (m: string) => never,
  ) {
    if (values !== undefined && (typeof values !== 'object' || values === null || Array.isArray(values))) {
      fail('secrets must be an object of secret name to value, e.g. { CRM_API_KEY: crmApiKey.stringValue }');
    }
    const checked = new Map<string, string>();
    for (const [name, value] of Object.entries(values ?? {})) {
      const problem = secretNameProblem(name);
      if (problem !== undefined) fail(`secrets.${name}: the name ${problem}`);
      // never quote the value: it is a secret
      if (typeof value !== 'string')
        fail(`secrets.${name} must be a string (e.g. a sensitive TerraformVariable's stringValue)`);
      if (!Token.isUnresolved(value)) {
        Annotations.of(scope).addWarning(
          `secrets.${name} is a literal string: it is written into cdk.tf.json and the Terraform state. ` +
            "Pass a sensitive TerraformVariable instead (new TerraformVariable(stack, 'x', { type: 'string', sensitive: true }).stringValue)",
        );
      }
      checked.set(name, value);
    }
    this.values = checked;
  }

  /** The `[name, value]` pairs, in the order given. */
  public entries(): readonly (readonly [string, string])[] {
    return [...this.values];
  }

  /**
   * Synth errors: a secret a service (or the store's `password`) names that is not given. Warns about a secret
   * nothing names.
   */
  public check(gateway: string, services: readonly Service[], storePassword?: string): string[] {
    const errors: string[] = [];
    const used = new Set<string>();
    if (storePassword !== undefined) {
      used.add(storePassword);
      if (!this.values.has(storePassword)) {
        errors.push(
          `Gateway '${gateway}': store.password is Secret.env('${storePassword}') but the gateway has no value for it: ` +
            `add secrets: { ${storePassword}: <a sensitive TerraformVariable's stringValue> } to the gateway`,
        );
      }
    }
    for (const service of services) {
      for (const name of service.secretNames) {
        used.add(name);
        if (this.values.has(name)) continue;
        errors.push(
          `Gateway '${gateway}': service '${service.name}' uses Secret.env('${name}') but the gateway has no value ` +
            `for it: add secrets: { ${name}: <a sensitive TerraformVariable's stringValue> } to the gateway`,
        );
      }
    }
    for (const name of this.values.keys()) {
      if (!used.has(name)) {
        Annotations.of(this.scope).addWarning(
          `Gateway '${gateway}': secrets.${name} is named by none of its services: remove it, or reference it with Secret.env('${name}')`,
        );
      }
    }
    return errors;
  }
}

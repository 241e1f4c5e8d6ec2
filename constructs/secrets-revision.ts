import { DataResource, dependable, Fn, type ITerraformDependable } from 'cdktf';
import { Construct } from 'constructs';

/**
 * A name part that changes whenever a gateway's secret values change and reveals nothing about them: the random
 * id of a `terraform_data` resource replaced when any value changes. Docker secrets cannot change, so a new value
 * needs a new secret under a new name; deriving that name from a hash of the value would let anyone who can list
 * secrets (or read the plan) test guesses of it offline.
 */
export class SecretsRevision extends Construct {
  /** Eight hex digits of the revision's id, for Docker object names. */
  public readonly tag: string;
  private readonly resource: DataResource;

  /** @param values the secret values (references to sensitive values), in a fixed order */
  public constructor(scope: Construct, id: string, values: readonly (readonly [string, string])[]) {
    super(scope, id);
    this.resource = new DataResource(this, 'Resource', {
      triggersReplace: Object.fromEntries(values.map(([name, value]) => [name, value])),
    });
    this.tag = Fn.substr(Fn.replace(this.resource.id, '-', ''), 0, 8);
  }

  /** Moves to new values only after `check` passed them, so that a refused value names no new object. */
  public after(check: ITerraformDependable): void {
    this.resource.dependsOn = [...(this.resource.dependsOn ?? []), dependable(check)];
  }
}

import { SecretRefConfig, secretNameProblem } from '../src/config';
import { quote } from './docker-names';

/**
 * A reference to a secret the gateway reads when it starts: the file `/run/secrets/NAME` (a Docker secret),
 * else its environment variable `NAME`. Only the name goes into the gateway config; the value comes from
 * `Gateway.secrets` at deploy time, or from the environment under `cdktf-mcp-gateway dev`.
 *
 * @example
 * endpoint: { url: 'https://crm:8443/customers/{customer_id}', method: 'GET',
 *             headers: { Authorization: Secret.env('CRM_API_KEY') } }
 */
export class Secret {
  /**
   * The secret `name`.
   * @throws Error when `name` is not an environment variable name, or is one the gateway's process uses itself
   */
  public static env(name: string): Secret {
    const problem = typeof name === 'string' ? secretNameProblem(name) : 'must be a string';
    if (problem !== undefined) throw new Error(`Secret.env(${quote(name)}): the name ${problem}`);
    return new Secret(name);
  }

  /** Whether `x` is a `Secret` (works across copies of this package). */
  public static isSecret(x: unknown): x is Secret {
    return typeof x === 'object' && x !== null && SECRET_SYMBOL in x;
  }

  private constructor(
    /** The environment variable name, also the file name under `/run/secrets`. */
    public readonly name: string,
  ) {
    Object.defineProperty(this, SECRET_SYMBOL, { value: true });
  }

  /** The reference as the gateway config holds it. */
  public toConfig(): SecretRefConfig {
    return { secret: this.name };
  }

  /** Never the value (there is none here): the reference, for messages. */
  public toString(): string {
    return `Secret.env('${this.name}')`;
  }
}

const SECRET_SYMBOL = Symbol.for('cdktf-mcp-gateway.Secret');

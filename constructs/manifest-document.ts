import { BackendMethod, ValidationErrorsChannel } from '../src/config';
import { InputSpec } from '../src/schema';
import type { GatewayAuth } from './gateway';
import type { ServiceContainer } from './service';

/** A mistake in a manifest file, located by file, line and column (1-based). */
export class ManifestError extends Error {
  public constructor(
    message: string,
    /** The file as given to the `Manifest`. */
    public readonly file: string,
    /** Line of the first mistake. */
    public readonly line: number,
    /** Column of the first mistake. */
    public readonly column: number,
  ) {
    super(message);
    this.name = 'ManifestError';
  }
}

/** Where a manifest entry sits, for errors found after reading (e.g. by the constructs). */
export interface ManifestLocation {
  /** 1-based line. */
  readonly line: number;
  /** 1-based column. */
  readonly column: number;
  /** The dotted path of the entry, e.g. `services.get_customer`. */
  readonly path: string;
}

/** A service as read from the manifest: its `Service` props and where it is written. */
export interface ManifestService {
  /** The tool name: the entry's key under `services`. */
  readonly name: string;
  readonly description?: string;
  readonly endpoint: { readonly url: string; readonly method: BackendMethod };
  readonly input?: InputSpec;
  readonly inputSchema?: Record<string, unknown>;
  readonly timeoutMs?: number;
  readonly container?: ServiceContainer;
  /** Where the entry's key is written. */
  readonly at: ManifestLocation;
  /** Where `input` sits (its errors are reported there). */
  readonly inputAt?: ManifestLocation;
}

/** A gateway as read from the manifest; `services` are names of manifest services. */
export interface ManifestGateway {
  /** The gateway name: the entry's key under `gateways`. */
  readonly name: string;
  readonly services: readonly string[];
  readonly validateInput?: boolean;
  readonly validationErrors?: ValidationErrorsChannel;
  readonly auth: GatewayAuth;
  readonly auditLog?: boolean | { readonly path: string };
  readonly port?: number;
  readonly baseImage?: string;
  readonly allowedHosts?: readonly string[];
  readonly allowedOrigins?: readonly string[];
  /** Where the entry's key is written. */
  readonly at: ManifestLocation;
}

/** The whole manifest, in file order. */
export interface ManifestDocument {
  readonly services: readonly ManifestService[];
  readonly gateways: readonly ManifestGateway[];
}

/** Format an error found after reading (e.g. thrown by a construct) at a manifest entry. */
export function manifestErrorAt(file: string, at: ManifestLocation, message: string): ManifestError {
  return new ManifestError(`${file}:${at.line}:${at.column}: ${at.path}: ${message}`, file, at.line, at.column);
}

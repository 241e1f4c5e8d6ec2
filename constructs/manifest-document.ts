import type { AuditDashboardProps } from './audit-dashboard';
import type { GatewayProps } from './gateway';
import type { ServiceProps } from './service';

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
export interface ManifestService extends Omit<ServiceProps, 'name'> {
  /** The tool name: the entry's key under `services`. */
  readonly name: string;
  /** Where the entry's key is written. */
  readonly at: ManifestLocation;
}

/** A gateway as read from the manifest: its `Gateway` props, with `services` named, and where it is written. */
export interface ManifestGateway extends Omit<GatewayProps, 'name' | 'services' | 'sessionKey'> {
  /** The gateway name: the entry's key under `gateways`. */
  readonly name: string;
  /**
   * `session_key: { variable: NAME }`: the session key is the sensitive Terraform variable NAME (created by the
   * `Manifest`, set with `TF_VAR_NAME`); a key is never written in the manifest itself.
   */
  readonly sessionKeyVariable?: string;
  /** Names of services declared in the same manifest. */
  readonly services: readonly string[];
  /** Where the entry's key is written. */
  readonly at: ManifestLocation;
}

/** An audit dashboard as read from the manifest: its `AuditDashboard` props, with `gateways` named. */
export interface ManifestDashboard extends Omit<AuditDashboardProps, 'name' | 'gateways'> {
  /** The dashboard name: the entry's key under `dashboards`. */
  readonly name: string;
  /** Names of gateways declared in the same manifest. */
  readonly gateways: readonly string[];
  /** Where the entry's key is written. */
  readonly at: ManifestLocation;
}

/** The whole manifest, in file order. */
export interface ManifestDocument {
  readonly services: readonly ManifestService[];
  readonly gateways: readonly ManifestGateway[];
  readonly dashboards: readonly ManifestDashboard[];
}

/** Format an error found after reading (e.g. thrown by a construct) at a manifest entry. */
export function manifestErrorAt(file: string, at: ManifestLocation, message: string): ManifestError {
  return new ManifestError(`${file}:${at.line}:${at.column}: ${at.path}: ${message}`, file, at.line, at.column);
}

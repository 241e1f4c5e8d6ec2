import { PackageError } from './package-error';

/** A gateway config document that cannot be used; the message is one line naming the field. */
export class ConfigError extends PackageError {
  constructor(message: string) {
    super(message, 'ERR_CONFIG');
  }
}

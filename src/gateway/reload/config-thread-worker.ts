/**
 * The config thread's work: read, parse and check one config file, and answer with the checked config as JSON
 * text, each tool apart, so that the event loop can parse it a slice at a time.
 */
import { ConfigError } from '../../config/config-error';
import { readGatewayConfigFile } from '../../config/load-config';

/** The thread's answer. */
export type ConfigThreadAnswer =
  | {
      readonly ok: true;
      readonly digest: string;
      /** The config with an empty `tools`, as JSON text. */
      readonly head: string;
      /** Each tool as JSON text, in order. */
      readonly tools: readonly string[];
    }
  | { readonly ok: false; readonly message: string; readonly configError: boolean };

/** Reads and checks `file`; never throws. */
export function readConfigForThread(file: string): ConfigThreadAnswer {
  try {
    const { config, digest } = readGatewayConfigFile(file, true);
    return {
      ok: true,
      digest,
      head: JSON.stringify({ ...config, tools: [] }),
      tools: config.tools.map((tool) => JSON.stringify(tool)),
    };
  } catch (err) {
    return { ok: false, message: (err as Error).message, configError: err instanceof ConfigError };
  }
}

import * as fs from 'node:fs';

/** Thrown when a config hand-over cannot run at all: the message is the line the deploy prints. */
export class HandoffError extends Error {}

/**
 * The synthesized stack (`cdk.tf.json`) a hand-over reads its description from.
 * @throws HandoffError when the file cannot be read or is not JSON
 */
export function readSynthesizedStack(stackFile: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(stackFile, 'utf8'));
  } catch (err) {
    throw new HandoffError(
      `cdktf-mcp-gateway: cannot read the synthesized stack ${stackFile}: ${(err as Error).message}`,
    );
  }
}

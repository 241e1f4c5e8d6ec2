/** Prints a command's usage error as one line pointing at its help, and gives the exit code of a usage error. */
export function usageFailure(command: string, err: unknown): 2 {
  process.stderr.write(
    `cdktf-mcp-gateway: ${(err as Error).message.split('\n')[0]} (see: cdktf-mcp-gateway ${command} --help)\n`,
  );
  return 2;
}

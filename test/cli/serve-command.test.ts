import assert from 'node:assert/strict';
import { parseServeArgs } from '../../src/cli/serve-command';

describe('serve arguments', () => {
  it('parses every flag', () => {
    assert.deepEqual(
      parseServeArgs(['--config', 'g.json', '--port', '0', '--host', '127.0.0.1', '--audit-log', 'a.jsonl', '--watch']),
      {
        configPath: 'g.json',
        port: 0,
        host: '127.0.0.1',
        auditLogPath: 'a.jsonl',
        watch: true,
      },
    );
  });

  it('leaves unset overrides undefined', () => {
    assert.deepEqual(parseServeArgs(['--config=g.yaml']), {
      configPath: 'g.yaml',
      port: undefined,
      host: undefined,
      auditLogPath: undefined,
      watch: false,
    });
  });

  it('answers help', () => {
    assert.equal(parseServeArgs(['--help']), 'help');
  });

  it('requires --config', () => {
    assert.throws(() => parseServeArgs(['--port', '8080']), { message: '--config FILE is required' });
  });

  it('refuses a port that is not an integer 0-65535', () => {
    assert.throws(() => parseServeArgs(['--config', 'g.json', '--port', '70000']), {
      message: '--port: must be an integer 0-65535, got "70000"',
    });
    assert.throws(() => parseServeArgs(['--config', 'g.json', '--port', '8e3']), {
      message: '--port: must be an integer 0-65535, got "8e3"',
    });
  });

  it('refuses an unknown flag', () => {
    assert.throws(
      () => parseServeArgs(['--config', 'g.json', '--verbose']),
      (err: Error) => err.message.startsWith("Unknown option '--verbose'"),
    );
  });
});

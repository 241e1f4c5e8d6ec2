/**
 * YAML indentation mistakes in a user's words, with the column of the offending key: the manifest reader and
 * the gateway config loader share `explainYamlErrors`.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Manifest } from '../../constructs';
import { loadGatewayConfig } from '../../src/config';
import { newStack, thrown } from '../constructs/synth';

const UNDER_INDENTED = `services:
  get_customer:
    description: Look up a customer
   endpoint: { url: "http://crm:8080/c", method: GET }
gateways: {}
`;

const OVER_INDENTED = `gateways:
  support:
    services: [get_customer]
    port: 8080
      auth: none
`;

const TAB = 'services:\n\tget_customer: {}\n';

describe('YAML indentation errors', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'yaml-errors-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  function write(name: string, text: string): string {
    const file = path.join(dir, name);
    writeFileSync(file, text);
    return file;
  }

  describe('in a manifest', () => {
    const manifestError = (text: string): string => {
      const file = write('m.yaml', text);
      return thrown(() => new Manifest(newStack(), 'm', { path: file })).message.replace(`${file}:`, 'm.yaml:');
    };

    it('names the key indented less than its siblings, at its own column', () => {
      assert.equal(
        manifestError(UNDER_INDENTED),
        'm.yaml:4:4: `endpoint` is indented by 3 spaces but `description` above it by 4 spaces: keys of one map start ' +
          'in the same column; indent it like its siblings',
      );
    });

    it('names the key indented deeper than a key that already has a value', () => {
      assert.equal(
        manifestError(OVER_INDENTED),
        'm.yaml:5:7: `auth` is indented deeper than `port` above it, which already has a value on its line: indent it ' +
          'like its siblings, or move that value to nested lines',
      );
    });

    it('says that YAML indents with spaces when a tab indents a line', () => {
      assert.equal(manifestError(TAB), 'm.yaml:2:1: this line is indented with a tab: YAML indents with spaces only');
      // a tab before keys indented with spaces: the tab, not the line after it
      const mixed = 'services:\n  a:\n\tdescription: x\n    endpoint: y\n';
      assert.equal(manifestError(mixed), 'm.yaml:3:1: this line is indented with a tab: YAML indents with spaces only');
    });

    it('says what to do about the slips a newcomer makes most', () => {
      assert.equal(
        manifestError('gateways:\n  support:\n    port:8081\n    auth: none\n'),
        'm.yaml:3:10: `port:8081` needs a space after the colon: write `port: 8081`',
      );
      assert.equal(
        manifestError('services:\n  a:\n    input:\n      zip: { type: string, pattern: "^\\d{5}$" }\n'),
        'm.yaml:4:39: Invalid escape sequence \\d: in double quotes a backslash starts an escape: write the value ' +
          "in single quotes ('^\\d{5}$') or double the backslash",
      );
      // a list item of host:port or a URL is a text on purpose: the deeper line after it is the mistake
      assert.equal(
        manifestError('gateways:\n  a:\n    allowed_hosts:\n      - localhost:8080\n        port: 80\n'),
        'm.yaml:5:9: `port` is indented deeper than `localhost` above it, which already has a value on its line: ' +
          'indent it like its siblings, or move that value to nested lines',
      );
      // the first error is said, a tab after it too
      assert.match(manifestError('a:\n  b: "\\d"\n  c:\n\td: 1\n'), /^m\.yaml:2:\d+: Invalid escape sequence/);
      assert.match(
        manifestError('services:\n  a:\n    endpoint: { url: http://api:8080/w/{city}, method: GET }\n'),
        /^m\.yaml:3:40: Unexpected flow-map-start at node end: inside \{ … \} or \[ … \], quote a value that holds/,
      );
    });
  });

  describe('in a gateway config', () => {
    it('reports the same sentences and columns, on one line', () => {
      const under = write('under.yaml', 'version: 1\ngateway:\n  name: g\n  auth: none\ntools: []\n port: 8080\n');
      assert.equal(
        thrown(() => loadGatewayConfig(under)).message,
        `invalid YAML in ${under} at line 6, column 2: \`port\` is indented by 1 space but \`tools\` above it by 0 spaces: ` +
          'keys of one map start in the same column; indent it like its siblings',
      );
      const over = write('over.yaml', 'version: 1\ngateway:\n  name: g\n  auth: none\n   port: 8080\ntools: []\n');
      assert.equal(
        thrown(() => loadGatewayConfig(over)).message,
        `invalid YAML in ${over} at line 5, column 4: \`port\` is indented deeper than \`auth\` above it, which already ` +
          'has a value on its line: indent it like its siblings, or move that value to nested lines',
      );
    });
  });
});

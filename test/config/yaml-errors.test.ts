/**
 * YAML indentation mistakes and unclosed `{` or `[` in a user's words, at the offending key or bracket: the
 * manifest reader and the gateway config loader share `explainYamlErrors`.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Manifest, ManifestError } from '../../constructs';
import { loadGatewayConfig } from '../../src/config';
import { loadOpenApiDocument } from '../../src/openapi';
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

describe('YAML syntax errors', () => {
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
        'm.yaml:4:4: `endpoint` is indented by 3 spaces, between `get_customer` (2 spaces) and `description` above it ' +
          '(4 spaces): keys of one map start in the same column; align it with `get_customer`, or with `description` ' +
          'to nest it under `get_customer`',
      );
    });

    it('names the key indented deeper than a key that already has a value', () => {
      assert.equal(
        manifestError(OVER_INDENTED),
        'm.yaml:5:7: `auth` is indented by 6 spaces, deeper than `port` above it (4 spaces), which has a value on ' +
          'its line and so cannot hold nested keys: align `auth` with `port`, or nest it under a key that takes a map',
      );
    });

    it('names the sibling a key is deeper than, and says to align it or nest it under a key that takes a map', () => {
      const service = 'services:\n  get_customer:\n    endpoint:\n      url: http://crm:8080/c\n      method: GET\n';
      const deeper = (line: number, indent: number): string =>
        `m.yaml:${line}:${indent + 1}: \`timeout_ms\` is indented by ${indent} spaces, deeper than \`method\` above ` +
        'it (6 spaces), which has a value on its line and so cannot hold nested keys: align `timeout_ms` with ' +
        '`method`, or nest it under a key that takes a map';
      assert.equal(manifestError(`${service}        timeout_ms: 500\ngateways: {}\n`), deeper(6, 8));
      // at the end of the file, with CRLF line ends, after a comment or a blank line: the key's own line
      assert.equal(manifestError(`${service}        timeout_ms: 500`), deeper(6, 8));
      assert.equal(manifestError(`${service}        timeout_ms: 500\n`.replace(/\n/g, '\r\n')), deeper(6, 8));
      assert.equal(manifestError(`${service}      # the backend's limit\n        timeout_ms: 500\n`), deeper(7, 8));
      assert.equal(manifestError(`${service}\n        timeout_ms: 500\n`), deeper(7, 8));
      // after a quoted value too, which the library reports as another error
      assert.equal(manifestError(`${service.replace('GET', '"GET"')}       timeout_ms: 500\n`), deeper(6, 7));
    });

    it('names both keys a key one space off sits between, after a nested map', () => {
      // `timeout_ms` is one space deeper than its sibling `endpoint` and one less than `method`: either may be meant
      const text =
        'services:\n  get_customer:\n    endpoint:\n      url: http://crm:8080/c\n      method: GET\n' +
        '     timeout_ms: 500\ngateways: {}\n';
      const expected =
        'm.yaml:6:6: `timeout_ms` is indented by 5 spaces, between `endpoint` (4 spaces) and `method` above it ' +
        '(6 spaces): keys of one map start in the same column; align it with `endpoint`, or with `method` to nest it ' +
        'under `endpoint`';
      assert.equal(manifestError(text), expected);
      assert.equal(manifestError(text.replace(/\n/g, '\r\n')), expected);
      // nearer one of them (4-space indents): that one
      assert.equal(
        manifestError(
          'services:\n    get_customer:\n        endpoint:\n            url: http://crm:8080/c\n            method: GET\n' +
            '         timeout_ms: 500\n',
        ),
        'm.yaml:6:10: `timeout_ms` is indented by 9 spaces but `endpoint` above it by 8 spaces: keys of one map ' +
          'start in the same column; indent it like its siblings',
      );
      // a key is no list item: after `- a`, `- b` only the key above the list is its sibling
      assert.equal(
        manifestError('gateways:\n  support:\n    services:\n      - a\n      - b\n     auth: none\n'),
        'm.yaml:6:6: `auth` is indented by 5 spaces but `services` above it by 4 spaces: keys of one map start in ' +
          'the same column; indent it like its siblings',
      );
    });

    it('says an unclosed { or [ is not closed, where it opens', () => {
      const unclosed = (line: number, column: number): string =>
        `m.yaml:${line}:${column}: this \`{\` is not closed: end the map with \`}\``;
      const input = '    input: {type: object, properties: {a: {type: string}}\n';
      const service = `services:\n  get_customer:\n    description: Look up a customer\n${input}`;
      assert.equal(manifestError(`${service}    timeout_ms: 500\ngateways: {}\n`), unclosed(4, 12));
      // at the end of the file, with or without a line end; CRLF; a comment or a tab after it
      assert.equal(manifestError(service), unclosed(4, 12));
      assert.equal(manifestError(service.trimEnd()), unclosed(4, 12));
      assert.equal(manifestError(`${service}    timeout_ms: 500\n`.replace(/\n/g, '\r\n')), unclosed(4, 12));
      assert.equal(manifestError(`${service}    # the limit\n\n    timeout_ms: 500\n`), unclosed(4, 12));
      assert.equal(manifestError(`${service}\ttimeout_ms: 500\n`), unclosed(4, 12));
      // on the first line, several levels deep, as a list item, over several lines
      assert.equal(manifestError('services: {get_customer: {}\ngateways: {}\n'), unclosed(1, 11));
      assert.equal(manifestError('{services: {}\n'), unclosed(1, 1));
      assert.equal(manifestError('a:\n  b:\n    c:\n      d: {x: {y: [1, 2]}\n      e: 1\n'), unclosed(4, 10));
      assert.equal(manifestError('a:\n  - {x: 1\n  - {y: 2}\n'), unclosed(2, 5));
      assert.equal(manifestError('a:\n  b: {x: 1,\n    y: {z: 2}\n  c: 1\n'), unclosed(2, 6));
      assert.equal(
        manifestError('gateways:\n  support:\n    services: [get_customer\n    auth: none\n'),
        'm.yaml:3:15: this `[` is not closed: end the list with `]`',
      );
      // closed, on a line not indented deeper than its key: said there
      assert.equal(
        manifestError('a:\n  b: {x: 1,\n  y: 2}\n'),
        'm.yaml:3:3: Flow map in block collection must be sufficiently indented and end with a }: close the { … } or ' +
          '[ … ] on its line, or indent its next lines deeper than its key',
      );
    });

    it('names a first key indented deeper than the keys below it, at its own line', () => {
      assert.equal(
        manifestError('# the support desk\n  services:\n    get_customer: {}\ngateways: {}\n'),
        'm.yaml:2:3: `services`, the first key, is indented by 2 spaces but `gateways` on line 4 by 0 spaces: the ' +
          'keys at the top of the file start in the first column; remove the spaces before `services`',
      );
      assert.equal(
        manifestError(' services: {}\r\ngateways: {}'),
        'm.yaml:1:2: `services`, the first key, is indented by 1 space but `gateways` on line 2 by 0 spaces: the ' +
          'keys at the top of the file start in the first column; remove the spaces before `services`',
      );
    });

    it('says a line of text among keys is not a key and its value', () => {
      assert.equal(
        manifestError(
          'services:\n  get_customer:\n    description: Look up a customer\n    by id\n    timeout_ms: 5\n',
        ),
        'm.yaml:4:5: `by id` is not a `key: value`: write it as one, or remove the line',
      );
    });

    it('says a key without its colon and space is not a key, last of its map too', () => {
      // the last key of its map (before a shallower key or the end): the library's words are its parser's own
      assert.equal(
        manifestError('gateways:\n  support:\n    auth: none\n    port:8081\n'),
        'm.yaml:4:10: `port:8081` needs a space after the colon: write `port: 8081`',
      );
      assert.equal(
        manifestError('services:\n  a:\n    description: d\n    timeout_ms:5000\n  b: {}\n'),
        'm.yaml:4:16: `timeout_ms:5000` needs a space after the colon: write `timeout_ms: 5000`',
      );
      assert.equal(
        manifestError('gateways:\n  support:\n    auth: none\n    port 8081\n'),
        'm.yaml:4:5: `port 8081` is not a `key: value`: write it as one, or remove the line',
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
        'm.yaml:5:9: `port` is indented by 8 spaces, deeper than `- localhost:8080` above it (6 spaces), which has a ' +
          'value on its line and so cannot hold nested keys: align `port` with `- localhost:8080`, or nest it under a ' +
          'key that takes a map',
      );
      // the first error is said, a tab after it too
      assert.match(manifestError('a:\n  b: "\\d"\n  c:\n\td: 1\n'), /^m\.yaml:2:\d+: Invalid escape sequence/);
      assert.match(
        manifestError('services:\n  a:\n    endpoint: { url: http://api:8080/w/{city}, method: GET }\n'),
        /^m\.yaml:3:40: Unexpected flow-map-start at node end: inside \{ … \} or \[ … \], quote a value that holds/,
      );
    });

    it('says where a quoted text opens that is never closed, and which quote ends one too early', () => {
      const service = (line: string) =>
        `services:\n  s:\n    ${line}\n    endpoint: { url: "http://b:8080/i", method: GET }\ngateways: {}\n`;
      const single = "write an apostrophe inside '…' as ''";
      const double = 'write a quote inside "…" as \\"';
      // the library says where it gave up (the end of the file) and `Missing closing 'quote`
      assert.equal(
        manifestError(service("description: 'Look up a customer")),
        `m.yaml:3:18: this ' opens a text that is never closed: end it with ', and ${single}`,
      );
      assert.equal(
        manifestError(service('description: "Look up a customer')),
        `m.yaml:3:18: this " opens a text that is never closed: end it with ", and ${double}`,
      );
      assert.equal(
        manifestError('services:\n  s:\n    endpoint: { url: "http://b:8080/i, method: GET }\n'),
        `m.yaml:3:22: this " opens a text that is never closed: end it with ", and ${double}`,
      );
      // the library says `Unexpected scalar at node end` after the quote
      assert.equal(
        manifestError(service("description: 'Look up a customer's orders'")),
        `m.yaml:3:37: this ' ends the quoted text too early (the text goes on after it): ${single}, or put the ` +
          'text in double quotes',
      );
      assert.equal(
        manifestError(service('description: "Look up a "big" customer"')),
        `m.yaml:3:29: this " ends the quoted text too early (the text goes on after it): ${double}, or put the text ` +
          'in single quotes',
      );
      // written as YAML asks, it reads
      const file = write('quotes.yaml', service(`description: 'a customer''s orders, "big" ones'`));
      assert.doesNotThrow(() => new Manifest(newStack(), 'm', { path: file }));
    });

    it('says the same of a quote in a key, and in a [ … ] list', () => {
      const early = (q: string) =>
        q === "'"
          ? "this ' ends the quoted text too early (the text goes on after it): write an apostrophe inside '…' as '', " +
            'or put the text in double quotes'
          : 'this " ends the quoted text too early (the text goes on after it): write a quote inside "…" as \\", or ' +
            'put the text in single quotes';
      const endpoint = '    endpoint: { url: "http://b:8080/i", method: GET }\n';
      // the library says `Missing , or : between flow sequence items` after the quote
      assert.equal(
        manifestError(`services:\n  s:\n    description: d\n${endpoint}gateways:\n  g:\n    services: ['s's']\n`),
        `m.yaml:7:18: ${early("'")}`,
      );
      // `Unexpected scalar token`, for the first key of the file
      assert.equal(manifestError(`'customer's': {}\n`), `m.yaml:1:10: ${early("'")}`);
      // below another key, the library says `Implicit map keys need to be followed by map values` at its start
      const s = `services:\n  s:\n    description: d\n${endpoint}`;
      assert.equal(manifestError(`${s}  "get "customer"":\n    description: d\n`), `m.yaml:5:8: ${early('"')}`);
      // and `Implicit keys need to be on a single line` at the start of one never closed
      assert.equal(
        manifestError(`${s}  'get_customer:\n    description: d\n`),
        "m.yaml:5:3: this ' opens a text that is never closed: end it with ', and write an apostrophe inside '…' as ''",
      );
    });
  });

  describe('in a gateway config', () => {
    const TOOL =
      'version: 1\ngateway:\n  name: g\n  auth: none\ntools:\n  - name: t\n    description: d\n' +
      '    input_schema: { type: object }\n    backend:\n      url: http://a/\n      method: GET\n';

    it("says which quote ends a tool's description too early", () => {
      const quoted = write('quoted.yaml', TOOL.replace('description: d', "description: 'a customer's orders'"));
      assert.equal(
        thrown(() => loadGatewayConfig(quoted)).message,
        `invalid YAML in ${quoted} at line 7, column 29: this ' ends the quoted text too early (the text goes on ` +
          "after it): write an apostrophe inside '…' as '', or put the text in double quotes",
      );
    });

    it('names the key a tool entry key is deeper than', () => {
      const deeper = write('deeper.yaml', `${TOOL}        timeout_ms: 500\n`);
      assert.equal(
        thrown(() => loadGatewayConfig(deeper)).message,
        `invalid YAML in ${deeper} at line 12, column 9: \`timeout_ms\` is indented by 8 spaces, deeper than ` +
          '`method` above it (6 spaces), which has a value on its line and so cannot hold nested keys: align ' +
          '`timeout_ms` with `method`, or nest it under a key that takes a map',
      );
      const between = write('between.yaml', `${TOOL}     timeout_ms: 500\n`);
      assert.equal(
        thrown(() => loadGatewayConfig(between)).message,
        `invalid YAML in ${between} at line 12, column 6: \`timeout_ms\` is indented by 5 spaces, between ` +
          '`backend` (4 spaces) and `method` above it (6 spaces): keys of one map start in the same column; align it ' +
          'with `backend`, or with `method` to nest it under `backend`',
      );
    });

    it('says an unclosed { is not closed, at the line it opens', () => {
      const file = write(
        'unclosed.yaml',
        TOOL.replace('{ type: object }', '{type: object, properties: {a: {type: string}}').replace(/\n/g, '\r\n'),
      );
      assert.equal(
        thrown(() => loadGatewayConfig(file)).message,
        `invalid YAML in ${file} at line 8, column 19: this \`{\` is not closed: end the map with \`}\``,
      );
    });

    it('names a first key indented deeper than the keys below it', () => {
      const file = write('first.yaml', ' version: 1\ngateway:\n  name: g\n  auth: none\ntools: []\n');
      assert.equal(
        thrown(() => loadGatewayConfig(file)).message,
        `invalid YAML in ${file} at line 1, column 2: \`version\`, the first key, is indented by 1 space but ` +
          '`gateway` on line 2 by 0 spaces: the keys at the top of the file start in the first column; remove the ' +
          'spaces before `version`',
      );
    });

    it('names the key of a line indented by 100,000 spaces, and of one with 100,000 list dashes', () => {
      const deep = write('deep.yaml', `version: 1\ngateway:\n  name: g\n${' '.repeat(100_000)}auth: none\ntools: []\n`);
      assert.match(thrown(() => loadGatewayConfig(deep)).message, /column 100001: `auth` is indented by 100000 spaces/);
      const dashes = write(
        'dashes.yaml',
        `version: 1\ngateway:\n  name: g\n  auth: none\n   ${'- '.repeat(100_000)}x: 1\n  c: 2\ntools: []\n`,
      );
      assert.match(thrown(() => loadGatewayConfig(dashes)).message, /at line 5, column 4: `- - - /);
    });

    it('reports the same sentences and columns, on one line', () => {
      const under = write('under.yaml', 'version: 1\ngateway:\n  name: g\n  auth: none\ntools: []\n port: 8080\n');
      assert.equal(
        thrown(() => loadGatewayConfig(under)).message,
        `invalid YAML in ${under} at line 6, column 2: \`port\` is indented by 1 space, deeper than \`tools\` above it ` +
          '(0 spaces), which has a value on its line and so cannot hold nested keys: align `port` with `tools`, or nest ' +
          'it under a key that takes a map',
      );
      const over = write('over.yaml', 'version: 1\ngateway:\n  name: g\n  auth: none\n   port: 8080\ntools: []\n');
      assert.equal(
        thrown(() => loadGatewayConfig(over)).message,
        `invalid YAML in ${over} at line 5, column 4: \`port\` is indented by 3 spaces, deeper than \`auth\` above it ` +
          '(2 spaces), which has a value on its line and so cannot hold nested keys: align `port` with `auth`, or nest ' +
          'it under a key that takes a map',
      );
    });
  });
});

describe('YAML nested hundreds of levels deep (the reader recurses once a level)', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'yaml-deep-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const TOO_DEEP =
    'the YAML nests hundreds of levels deep here, deeper than it can be read: look for a `[` or `{` that is never ' +
    'closed, or indentation that keeps growing';
  const LEVELS = 5_000;
  /** Brackets on one line, and maps each indented one space deeper than the last (the most indented line last). */
  const flow = `x-deep: ${'['.repeat(LEVELS)}${']'.repeat(LEVELS)}\n`;
  const block = `x-deep:\n${Array.from({ length: LEVELS }, (_, i) => `${' '.repeat(i + 1)}a:`).join('\n')} 1\n`;

  function write(name: string, text: string): string {
    const file = path.join(dir, name);
    writeFileSync(file, text);
    return file;
  }

  it('a manifest: said at the line it is reached, in place of a stack overflow', () => {
    for (const [text, line] of [
      [flow, '1'],
      [block, '\\d+'],
    ]) {
      const file = write('m.yaml', text);
      const err = thrown(() => new Manifest(newStack(), 'm', { path: file }));
      assert.ok(err instanceof ManifestError, err.message);
      assert.match(err.message, new RegExp(`^${file}:${line}:\\d+: ${escapeRegExp(TOO_DEEP)}$`));
      assert.ok(err.line >= 1 && err.line <= LEVELS + 1, `line ${err.line}`);
    }
  });

  it('a list of lists on one line (`- - - 1`): said at that line, not at a more indented one', () => {
    // the reader throws when the lists end at a shallower key: the deepest line is the one with the dashes
    const file = write('m.yaml', `x-deep:\n  ${'- '.repeat(LEVELS)}1\nservices:\n  s:\n    description: d\n`);
    const err = thrown(() => new Manifest(newStack(), 'm', { path: file }));
    assert.ok(err instanceof ManifestError, err.message);
    assert.equal(err.message, `${file}:2:${2 * LEVELS + 3}: ${TOO_DEEP}`);
  });

  it('an OpenAPI document nested deep through its aliases: said, not a RangeError', () => {
    // each anchor nests 500 levels and the one before it: 5,000 levels once read, few enough aliases to be read
    let text = 'openapi: 3.0.3\ninfo: { title: t, version: "1" }\npaths: {}\n';
    for (let i = 0; i < 10; i++)
      text += `x-${i}: &a${i} ${'['.repeat(500)}${i === 0 ? 1 : `*a${i - 1}`}${']'.repeat(500)}\n`;
    const document = write('openapi.yaml', text);
    const err = thrown(() => loadOpenApiDocument(document));
    assert.ok(!(err instanceof RangeError), err.stack);
    assert.match(err.message, new RegExp(`^${escapeRegExp(document)}: the document nests hundreds of levels deep`));
  });

  it('a syntax error by a line that quotes the overflow is said as itself, not as nesting too deep', () => {
    // the manifest's errors carry the lines around them: text of the user's is no overflow
    const file = write(
      'm.yaml',
      UNDER_INDENTED.replace('Look up a customer', 'Fails with "Maximum call stack size exceeded"'),
    );
    assert.match(
      thrown(() => new Manifest(newStack(), 'm', { path: file })).message,
      /^[^\n]*:4:4: `endpoint` is indented by 3 spaces, between `get_customer`/,
    );
  });

  it('a gateway config and an OpenAPI document: the same sentence', () => {
    for (const text of [flow, block]) {
      const config = write('gateway.yaml', text);
      assert.match(
        thrown(() => loadGatewayConfig(config)).message,
        new RegExp(`^invalid YAML in ${config} at line \\d+, column \\d+: ${escapeRegExp(TOO_DEEP)}$`),
      );
      const document = write('openapi.yaml', text);
      assert.match(
        thrown(() => loadOpenApiDocument(document)).message,
        new RegExp(`^${document}:\\d+:\\d+: neither JSON nor YAML: ${escapeRegExp(TOO_DEEP)}$`),
      );
    }
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

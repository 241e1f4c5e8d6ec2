/**
 * `hasPlaceholderBeforePath` answers the common form (`http(s)://host/…{field}`) from the text alone and parses
 * the URL only otherwise. This holds its verdict equal to the full check (fill the placeholders two ways, compare
 * what comes before the path) on every combination of tricky schemes, authorities, delimiters and paths.
 */
import assert from 'node:assert/strict';
import { hasPlaceholderBeforePath, hasPlaceholderBeforePathByParsing } from '../../src/config';

const PLACEHOLDER = /\{[^{}]*\}/;

/** The check without the text-only answer. */
function reference(url: string): boolean {
  return PLACEHOLDER.test(url) && hasPlaceholderBeforePathByParsing(url);
}

const SCHEMES = [
  'http://',
  'https://',
  'HTTPS://',
  'http:/',
  'http:',
  'http:///',
  'ftp://',
  ' http://',
  'http:\\\\',
  'ws://',
];
const AUTHORITIES = [
  'crm',
  'crm:8080',
  'u:p@crm',
  '',
  '{h}',
  'crm{p}',
  'a{b',
  'crm\\x',
  'c\trm',
  'c\nrm',
  '[::1]',
  'c}',
  'a b',
  '%7B',
];
const DELIMITERS = ['/', '?', '#', '', '\\', '\t/'];
const RESTS = ['{x}', 'a/{x}', '{x}/b', '{a/b}', '}{', 'x', '{x}@evil', '{x}:1', 'q={x}', ''];

describe('hasPlaceholderBeforePath', () => {
  it('gives the verdict of filling the placeholders and comparing the authority, on every combination', () => {
    let placeholderBefore = 0;
    let total = 0;
    for (const scheme of SCHEMES) {
      for (const authority of AUTHORITIES) {
        for (const delimiter of DELIMITERS) {
          for (const rest of RESTS) {
            const url = `${scheme}${authority}${delimiter}${rest}`;
            const expected = reference(url);
            assert.equal(hasPlaceholderBeforePath(url), expected, JSON.stringify(url));
            total++;
            if (expected) placeholderBefore++;
          }
        }
      }
    }
    // both verdicts occur often
    assert.ok(placeholderBefore > total / 10 && placeholderBefore < total / 2, `${placeholderBefore} of ${total}`);
  });

  it('refuses a placeholder that spans the end of the authority', () => {
    assert.equal(hasPlaceholderBeforePath('http://a{b/c}/x'), true);
    assert.equal(hasPlaceholderBeforePath('http://crm:8080/customers/{id}'), false);
  });
});

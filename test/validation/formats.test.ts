import { encode as punycodeEncode } from 'punycode/';
import * as assert from 'node:assert/strict';
import addFormats from 'ajv-formats';
import {
  isDate,
  isDateTime,
  isEmail,
  isHostname,
  isIsoDateTime,
  isTime,
  isUri,
  isUriReference,
  isUrl,
  isUuid,
} from '../../src/validation/formats';
import { runBounded } from './bounded';

const MIB = 1 << 20;

describe('formats', () => {
  it('date-time: RFC 3339 with offsets, leap seconds only at 23:59 UTC', () => {
    assert.equal(isDateTime('1998-12-31T23:59:60Z'), true);
    assert.equal(isDateTime('1998-12-31T15:59:60.123-08:00'), true);
    assert.equal(isDateTime('1998-12-31T22:59:60Z'), false);
    assert.equal(isDateTime('1985-04-12T23:20:50+01'), false);
    assert.equal(isDateTime('2016-12-31T24:59:60+01:00'), false);
    assert.equal(isDateTime('1985-04-12T00:59:59.999999999999999Z'), true);
    assert.equal(isDateTime('2025-01-02T03:04:05Z\n'), false);
  });
  it('date and time', () => {
    assert.equal(isDate('2024-02-29'), true);
    assert.equal(isDate('2023-02-29'), false);
    assert.equal(isDate('2023-13-01'), false);
    assert.equal(isTime('08:30:06Z'), true);
    assert.equal(isTime('08:30:06'), false);
  });
  it('uuid: the bare form only', () => {
    assert.equal(isUuid('2eb8aa08-aa98-11ea-b4aa-73b441d16380'), true);
    assert.equal(isUuid('urn:uuid:2eb8aa08-aa98-11ea-b4aa-73b441d16380'), false);
  });
  it('email: quoted local parts and address literals', () => {
    assert.equal(isEmail('"joe bloggs"@example.com'), true);
    assert.equal(isEmail('joe.bloggs@[127.0.0.1]'), true);
    assert.equal(isEmail('joe.bloggs@[IPv6:::1]'), true);
    assert.equal(isEmail('joe..bloggs@example.com'), false);
    assert.equal(isEmail('joe.bloggs@[127.0.0.300]'), false);
  });
  it('hostname: no trailing dot, A-labels decoded and checked', () => {
    assert.equal(isHostname('www.example.com'), true);
    assert.equal(isHostname('example.'), false);
    assert.equal(isHostname('xn--ihqwcrb4cv8a8dqg056pqjye'), true);
    assert.equal(isHostname('xn--X'), false);
    // A-labels that encode surrogate code points (U+D840 U+DC00 is not U+20000), and genuine astral ones
    for (const label of ['xn--cd9bq2e', 'xn--a-sf4g70h', 'xn--bf9b93j']) assert.equal(isHostname(label), false, label);
    assert.equal(isHostname(`xn--${punycodeEncode('\u{20000}\u{20001}')}`), true);
    assert.equal(isHostname('xn--Bcher-KVA.example'), true);
    assert.equal(isHostname('XN--aa---o47jg78q'), false);
  });
  it('uri: RFC 3986', () => {
    assert.equal(isUri('urn:oasis:names:specification:docbook:dtd:xml:4.1.2'), true);
    assert.equal(isUri('http://example.com:8080/a?b=c#d'), true);
    assert.equal(isUri('http://example.com:abc/path'), false);
    assert.equal(isUri('http://[::ffff:01.2.3.4]'), false);
    assert.equal(isUri('//example.com/relative'), false);
  });

  it('uri-reference: RFC 3986, a URI or a relative reference', () => {
    for (const ok of [
      'http://example.com:8080/a?b=c#d',
      'urn:isbn:0451450523',
      '//example.com/relative',
      '/abs/path?q#f',
      'rel/path/a:b',
      '../up',
      '?query',
      '#fragment',
      '',
      '//[::1]:80',
      'a%20b',
    ]) {
      assert.equal(isUriReference(ok), true, ok);
    }
    for (const bad of [
      '1a:b',
      ':no-scheme',
      'a b',
      '//exa mple.com',
      '#frag#ment',
      '\\\\WINDOWS\\fileshare',
      '/a%zz',
      '//a:b:c/',
    ]) {
      assert.equal(isUriReference(bad), false, bad);
    }
  });

  // Regressions: each of these took quadratic time before (a 1 MiB input about an hour for uri). They run in a
  // worker stopped after a generous limit (see bounded.ts), so that a stall fails instead of hanging the run.
  it('uri: refuses a 1 MiB near miss (a line terminator in the fragment) as a format violation', async function () {
    this.timeout(30_000);
    const message = await runBounded(`
      const { compileToolSchema } = require('./src/validation');
      const compiled = compileToolSchema({ type: 'object', properties: { link: { type: 'string', format: 'uri' } } });
      const result = compiled.validator.validate({ link: 'a://' + 'x'.repeat(${MIB}) + '#\\n' });
      return result.message;`);
    assert.equal(message, 'Invalid value for `link`: expected format uri');
  });
  it('uri, uri-reference, url, iso-date-time: 1 MiB near misses in every part are refused', async function () {
    this.timeout(30_000);
    const verdicts = (await runBounded(`
      const { isUri, isUriReference, isUrl, isIsoDateTime } = require('./src/validation/formats');
      const out = [];
      for (const unit of ['x', 'a@', ':', '%4', '/', '[', 'f:', '@/', '@', 'a.', '@a./']) {
        for (const [before, after] of [['a://', '#\\n'], ['a:', '\\n'], ['a://h/', '?\\n'], ['a://', ']'], ['http://', 'x\\n'], ['//', ' ']]) {
          const s = before + unit.repeat(${MIB} / unit.length) + after;
          out.push(isUri(s), isUriReference(s), isUrl(s));
        }
      }
      out.push(isIsoDateTime('T'.repeat(${MIB})));
      out.push(isUri('http://example.com/' + 'a/'.repeat(${MIB / 2})));
      return out;`)) as boolean[];
    assert.deepEqual(verdicts, [...Array(verdicts.length - 1).fill(false), true]);
  });
  it("url: the verdict of ajv-formats' expression, in linear time", () => {
    const original = addFormats.get('url') as RegExp;
    const samples = [
      'http://foo.com/blah_blah',
      'http://userid:password@example.com:8080/',
      'http://142.42.1.1:8080/',
      'http://10.1.1.1',
      'http://172.16.0.1/',
      'http://169.254.1.1',
      'http://a@b@foo.com/x',
      'http://a@b/c@foo.com',
      'http://a/b@foo.com',
      'ftp://foo.bar/baz',
      'http://foo.bar?q=Spaces should be encoded',
      'http://-error-.invalid/',
      'http://www.foo.bar./',
      'http://223.255.255.254',
      'http://1.1.1.1.1',
      'http://@foo.com',
      'http://x@foo.com@bar.com',
      'https://a@b.com/@c.com',
      'http://✪df.ws/123',
      'http://foo.com:1',
      'http://foo.com:12',
      'http://x@@foo.com',
      'HTTP://FOO.COM',
    ];
    for (const sample of samples) assert.equal(isUrl(sample), original.test(sample), sample);
  });
  it("iso-date-time: the verdict of ajv-formats' check, without a string per separator", () => {
    const original = addFormats.get('iso-date-time') as { validate: (s: string) => boolean };
    for (const sample of [
      '2020-01-01T10:00:00',
      '2020-01-01 10:00:00Z',
      '2020-01-01t10:00:00+01',
      '2020-01-01TT10:00:00',
      '2020-01-0110:00:00',
      'T',
      '2020-01-01\t10:00:00.5z',
    ]) {
      assert.equal(isIsoDateTime(sample), original.validate(sample), sample);
    }
  });
});

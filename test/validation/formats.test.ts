import * as assert from 'node:assert/strict';
import { isDate, isDateTime, isEmail, isHostname, isTime, isUri, isUuid } from '../../src/validation/formats';

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
    assert.equal(isHostname('XN--aa---o47jg78q'), false);
  });
  it('uri: RFC 3986', () => {
    assert.equal(isUri('urn:oasis:names:specification:docbook:dtd:xml:4.1.2'), true);
    assert.equal(isUri('http://example.com:8080/a?b=c#d'), true);
    assert.equal(isUri('http://example.com:abc/path'), false);
    assert.equal(isUri('http://[::ffff:01.2.3.4]'), false);
    assert.equal(isUri('//example.com/relative'), false);
  });
});

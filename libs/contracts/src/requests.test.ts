import { z } from 'zod';
import { ErrorMessages, QueryMessages, SandboxMessages } from './errors';
import { EVENT_TYPES } from './events';
import {
  checkRequest,
  CreatePaymentBodySchema,
  CreateRefundBodySchema,
  DisputeDefenseBodySchema,
  EventListQueryParamsSchema,
  ListQueryParamsSchema,
  SandboxPayBodySchema,
} from './requests';
import { PUBLIC_STATUSES } from './statuses';

const refusal = (message: string) => ({ ok: false, message });
const UUID = '00000000-0000-4000-8000-000000000000';

describe('the create-payment body', () => {
  const check = (body: unknown) => checkRequest(CreatePaymentBodySchema, body);

  it('makes the RPC input of a valid body, absent and null alike, other properties ignored', () => {
    expect(check({ amount: 25.5, email: null, webhookUrl: 'https://shop.example/h', expiresIn: 60, x: 1 })).toEqual({
      ok: true,
      value: {
        amountCents: 2550,
        email: null,
        observation: null,
        webhookUrl: 'https://shop.example/h',
        expiresInSeconds: 60,
      },
    });
  });

  it.each([
    ['no body', undefined, ErrorMessages.amountInvalid],
    ['null', null, ErrorMessages.amountInvalid],
    ['an array', [], ErrorMessages.bodyNotObject],
    ['a string', 'x', ErrorMessages.bodyNotObject],
    ['amount as text', { amount: '10' }, ErrorMessages.amountInvalid],
    ['amount below, too precise', { amount: 4.999 }, ErrorMessages.amountMin],
    ['amount above', { amount: 3000.01 }, ErrorMessages.amountMax],
    ['three decimals', { amount: 25.555 }, ErrorMessages.amountTooPrecise],
    ['amount before email', { amount: 1, email: 'x' }, ErrorMessages.amountMin],
    ['email before observation', { amount: 10, email: 'x', observation: 1 }, ErrorMessages.emailInvalid],
    ['an email too long', { amount: 10, email: `${'a'.repeat(250)}@b.com` }, ErrorMessages.emailInvalid],
    ['observation not text', { amount: 10, observation: 1, webhookUrl: 'x' }, ErrorMessages.observationInvalid],
    ['2049 characters', { amount: 10, observation: 'é'.repeat(2049) }, ErrorMessages.observationTooLong],
    [
      'webhookUrl before expiresIn',
      { amount: 10, webhookUrl: 'ftp://h', expiresIn: 1 },
      ErrorMessages.webhookUrlInvalid,
    ],
    ['a webhookUrl without a host', { amount: 10, webhookUrl: 'http:' }, ErrorMessages.webhookUrlInvalid],
    ['expiresIn as text', { amount: 10, expiresIn: '60' }, ErrorMessages.expiresInInvalid],
    ['expiresIn not whole', { amount: 10, expiresIn: 60.5 }, ErrorMessages.expiresInInvalid],
  ])('refuses %s with the first bad field’s message', (_name, body, message) => {
    expect(check(body)).toEqual(refusal(message));
  });

  it('counts observation in characters: 2048 emoji are 2048, not 4096 UTF-16 units', () => {
    expect(check({ amount: 10, observation: '😀'.repeat(2048) })).toMatchObject({ ok: true });
  });
});

describe('the refund body', () => {
  const check = (body: unknown) => checkRequest(CreateRefundBodySchema, body);

  it('takes no body, or no amount, as everything left; an empty reason as none', () => {
    expect(check(undefined)).toEqual({ ok: true, value: { amountCents: null, reason: null } });
    expect(check({ amount: null, reason: '' })).toEqual({ ok: true, value: { amountCents: null, reason: null } });
    expect(check({ amount: 10.5, reason: 'troca' })).toEqual({
      ok: true,
      value: { amountCents: 1050, reason: 'troca' },
    });
  });

  it.each([
    [null, ErrorMessages.bodyNotObject],
    [{ amount: 0, reason: 1 }, ErrorMessages.refundAmountInvalid],
    [{ amount: 1.005 }, ErrorMessages.refundAmountInvalid],
    [{ amount: 1e10 }, ErrorMessages.refundAmountInvalid],
    [{ reason: 'x'.repeat(141) }, ErrorMessages.refundReasonInvalid],
  ])('refuses %p', (body, message) => {
    expect(check(body)).toEqual(refusal(message));
  });
});

describe("the sandbox's pay body", () => {
  const check = (body: unknown) => checkRequest(SandboxPayBodySchema, body);

  it('takes no body as the amount due, on time, with its callback', () => {
    expect(check(undefined)).toEqual({ ok: true, value: { amountCents: undefined, late: false, dropCallback: false } });
    expect(check({ amount: 40, late: true, dropCallback: null })).toEqual({
      ok: true,
      value: { amountCents: 4000, late: true, dropCallback: false },
    });
  });

  it.each([
    [[], ErrorMessages.bodyNotObject],
    [{ amount: -1, late: 'yes' }, SandboxMessages.amountInvalid],
    [{ late: 'yes', dropCallback: 1 }, SandboxMessages.lateInvalid],
    [{ dropCallback: 1 }, SandboxMessages.dropCallbackInvalid],
  ])('refuses %p', (body, message) => {
    expect(check(body)).toEqual(refusal(message));
  });
});

describe('the list queries', () => {
  it('defaults page and limit, and reads them as integers', () => {
    expect(checkRequest(ListQueryParamsSchema, {})).toEqual({ ok: true, value: { page: 1, limit: 50 } });
    expect(checkRequest(ListQueryParamsSchema, { page: ' +3 ', limit: '200', status: 'review' })).toEqual({
      ok: true,
      value: { page: 3, limit: 200, status: 'review' },
    });
  });

  it.each([
    [{ page: '1.5', limit: '0' }, QueryMessages.notInteger('page')],
    [{ page: ['1', '2'] }, QueryMessages.notInteger('page')],
    [{ page: '0' }, QueryMessages.tooSmall('page', 1)],
    [{ limit: '201' }, QueryMessages.tooLarge('limit', 200)],
    [{ limit: '9'.repeat(400) }, QueryMessages.tooLarge('limit', 200)],
    [{ page: `-${'9'.repeat(400)}` }, QueryMessages.tooSmall('page', 1)],
    [{ limit: '0', status: 'x' }, QueryMessages.tooSmall('limit', 1)],
    [{ status: 'x' }, QueryMessages.notOneOf('status', PUBLIC_STATUSES)],
  ])('refuses the payments list %p', (query, message) => {
    expect(checkRequest(ListQueryParamsSchema, query)).toEqual(refusal(message));
  });

  it.each([
    [{ type: 'x', paymentId: 'y' }, QueryMessages.notOneOf('type', EVENT_TYPES)],
    [{ paymentId: 'ABCDEF00-0000-4000-8000-000000000000' }, ErrorMessages.paymentIdInvalid],
  ])('refuses the events list %p', (query, message) => {
    expect(checkRequest(EventListQueryParamsSchema, query)).toEqual(refusal(message));
  });

  it('takes an event type and a payment id', () => {
    expect(checkRequest(EventListQueryParamsSchema, { type: 'refund.created', paymentId: UUID })).toEqual({
      ok: true,
      value: { page: 1, limit: 50, type: 'refund.created', paymentId: UUID },
    });
  });
});

describe("a dispute's defence body", () => {
  const refused = { ok: false, message: ErrorMessages.disputeDefenseInvalid };

  it('takes a text of 1 to 1000 characters once trimmed, and refuses one of whitespace alone', () => {
    expect(checkRequest(DisputeDefenseBodySchema, { text: '  Entregue em 2026-11-20.  ' })).toEqual({
      ok: true,
      value: { text: 'Entregue em 2026-11-20.' },
    });
    expect(checkRequest(DisputeDefenseBodySchema, { text: ` ${'x'.repeat(1000)} ` }).ok).toBe(true);
    for (const text of ['', '\f', ' \t\n', '\u3000\ufeff', 'x'.repeat(1001)]) {
      expect(checkRequest(DisputeDefenseBodySchema, { text })).toEqual(refused);
    }
  });

  // Schemathesis sent {"text": "\f"}: valid by the document, refused by the gateway. The document's
  // pattern now says what trimming keeps, character for character.
  it('documents the blank texts it refuses: its pattern and trim() agree on every character', () => {
    const text = z.toJSONSchema(DisputeDefenseBodySchema).properties?.text as { pattern?: string } | undefined;
    const notBlank = new RegExp(text?.pattern ?? '(?!)');
    const disagree: number[] = [];
    for (let code = 0; code <= 0xffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const char = String.fromCharCode(code);
      if (notBlank.test(char) !== (char.trim() !== '')) disagree.push(code);
    }
    expect(disagree).toEqual([]);
  });
});

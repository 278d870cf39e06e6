import fs from 'node:fs';
import { got } from '@pix/http';
import { readLocalSecrets, type PspConnection } from '@pix/devstack';
import { sharedStack } from '../support/stack';

/**
 * The PSP simulator the shared stack runs, spoken to as a receiver does (mutual TLS with the
 * client certificate it issued, an OAuth2 token) and through its back office: API Pix's answers,
 * its RFC 7807 problems, the webhook registration, and what it refuses.
 */
describe('PSP simulator', () => {
  const stack = sharedStack();
  const psp = stack.psp as PspConnection;
  const clientSecret = readLocalSecrets(stack.secretsFile).pspClientSecret;
  const tls = {
    certificate: fs.readFileSync(psp.pki.adapterClient.cert, 'utf8'),
    key: fs.readFileSync(psp.pki.adapterClient.key, 'utf8'),
    certificateAuthority: fs.readFileSync(psp.pki.pspCa, 'utf8'),
  };
  const basic = (secret: string) => `Basic ${Buffer.from(`${psp.clientId}:${secret}`).toString('base64')}`;

  function token(secret = clientSecret) {
    return got.post(psp.oauthUrl, {
      form: { grant_type: 'client_credentials' },
      headers: { authorization: basic(secret) },
      https: tls,
      throwHttpErrors: false,
      retry: { limit: 0 },
    });
  }

  async function call(method: 'GET' | 'PUT' | 'DELETE', path: string, json?: object) {
    const { access_token: bearer } = JSON.parse((await token()).body) as { access_token: string };
    return got(`${psp.apiUrl}${path}`, {
      method,
      json,
      headers: { authorization: `Bearer ${bearer}` },
      https: tls,
      throwHttpErrors: false,
      retry: { limit: 0 },
    });
  }

  const problemOf = (body: string) => JSON.parse(body) as { type: string; title: string; status: number };

  it('issues a token to its client only, and answers a refusal as an API Pix problem', async () => {
    const issued = await token();
    expect(issued.statusCode).toBe(200);
    expect(JSON.parse(issued.body)).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    const refused = await token('not-the-secret-at-all');
    expect(refused.statusCode).toBe(401);
    expect(refused.headers['content-type']).toContain('application/problem+json');
    expect(problemOf(refused.body)).toEqual(
      expect.objectContaining({ type: 'https://pix.bcb.gov.br/api/v2/error/AcessoNegado', status: 401 }),
    );
  });

  it('refuses a client without a certificate of its CA in the TLS handshake', async () => {
    await expect(
      got.post(psp.oauthUrl, {
        form: { grant_type: 'client_credentials' },
        https: { certificateAuthority: tls.certificateAuthority },
        retry: { limit: 0 },
      }),
    ).rejects.toThrow();
  });

  it('answers what it does not hold, and bad queries, with their problems', async () => {
    const titles = async (method: 'GET' | 'PUT', path: string, json?: object) => {
      const answer = await call(method, path, json);
      return [answer.statusCode, problemOf(answer.body).title];
    };
    expect(await titles('GET', `/cob/${'a'.repeat(30)}`)).toEqual([404, 'CobNaoEncontrado']);
    expect(await titles('GET', '/pix/E00000000202611281200abcdefghijk')).toEqual([404, 'PixNaoEncontrado']);
    expect(await titles('GET', '/pix?inicio=yesterday&fim=today')).toEqual([400, 'ConsultaInvalida']);
    expect(await titles('PUT', '/cob/short', { valor: { original: '1.00' } })).toEqual([400, 'CobOperacaoInvalida']);
    expect(await titles('GET', '/nothing-here')).toEqual([404, 'NaoEncontrado']);
  });

  it('registers, reads, moves and removes a webhook, which must be https', async () => {
    const chave = `test-${Date.now()}@pix.local`;
    const path = `/webhook/${encodeURIComponent(chave)}`;
    const plain = await call('PUT', path, { webhookUrl: 'http://127.0.0.1:1/callbacks' });
    expect([plain.statusCode, problemOf(plain.body).title]).toEqual([400, 'WebhookOperacaoInvalida']);
    expect((await call('PUT', path, { webhookUrl: 'https://receiver.example/callbacks' })).statusCode).toBe(200);
    const read = await call('GET', path);
    expect(JSON.parse(read.body)).toMatchObject({ chave, webhookUrl: 'https://receiver.example/callbacks' });
    // Moved: the registration as the simulator keeps it in memory follows.
    expect((await call('PUT', path, { webhookUrl: 'https://moved.example/callbacks' })).statusCode).toBe(200);
    expect(JSON.parse((await call('GET', path)).body)).toMatchObject({ webhookUrl: 'https://moved.example/callbacks' });
    expect((await call('DELETE', path)).statusCode).toBe(204);
    expect((await call('GET', path)).statusCode).toBe(404);
    expect((await call('DELETE', path)).statusCode).toBe(404);
  });

  it('keeps a journal of the requests without their headers, and refuses a fault that does not fit', async () => {
    await call('GET', `/cob/${'b'.repeat(30)}`);
    const { requests } = await got(`${psp.backOfficeUrl}/journal?operation=cob.get`).json<{
      requests: { params: Record<string, string>; status: number }[];
    }>();
    expect(requests.at(-1)).toMatchObject({ params: { txid: 'b'.repeat(30) }, status: 404 });
    expect(JSON.stringify(requests)).not.toContain('Bearer');
    const misfit = await got.put(`${psp.backOfficeUrl}/faults/callback.pix`, {
      json: { kind: 'unavailable' },
      throwHttpErrors: false,
    });
    expect(misfit.statusCode).toBe(400);
    const unknown = await got.post(`${psp.backOfficeUrl}/cob/${'c'.repeat(30)}/pay`, {
      json: {},
      throwHttpErrors: false,
    });
    expect([unknown.statusCode, JSON.parse(unknown.body)]).toEqual([404, { error: 'charge_not_found' }]);
  });
});

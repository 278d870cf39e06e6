import { violationLabel } from './connection';

describe('violationLabel', () => {
  it('keeps a subject whole, and only the stable head of one that carries a token per message', () => {
    expect(violationLabel('pix.events.paid')).toBe('pix.events.paid');
    expect(violationLabel('$JS.ACK.PAYMENTS.webhook-dispatcher.1.2.3.4.5')).toBe(
      '$JS.ACK.PAYMENTS.webhook-dispatcher.>',
    );
    expect(violationLabel('_INBOX.gateway.abc.def')).toBe('_INBOX.gateway.>');
    // A service import's reply subject: one series, not one per refused answer.
    expect(violationLabel('_R_.mNHyuv.1JcDAT')).toBe('_R_.>');
  });
});

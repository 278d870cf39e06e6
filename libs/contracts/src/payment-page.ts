import { z } from 'zod';
import { PAYMENT_STATUSES, type PaymentStatus } from './statuses';

/**
 * The hosted payment page (`GET /pay/{id}`): what payments tells the gateway about a payment read
 * by id alone. It holds only what the customer may see, or what decides what they see: never the
 * e-mail, the observation, the webhookUrl or anything internal. The store's name comes from the
 * gateway, which owns the stores.
 */
export const PaymentPublicViewSchema = z.object({
  id: z.string(),
  storeId: z.string(),
  status: z.enum(PAYMENT_STATUSES),
  amount: z.number(),
  qrCopyPaste: z.string().nullable(),
  /** When the unpaid charge expires (ISO 8601). */
  expiresAt: z.string(),
  /** A Pix was received for it (so a not_approved payment was refused, not left to expire). */
  pixReceived: z.boolean(),
  /** The merchant cancelled it (so a not_approved payment without a Pix did not expire). */
  cancelled: z.boolean(),
  /** How many events the payment has emitted: a page drops stream events it has already seen. */
  sequence: z.number().int().min(0),
});
export type PaymentPublicView = z.infer<typeof PaymentPublicViewSchema>;

/** What the page shows, derived from the payment's status. */
export const PAGE_PHASES = ['pending', 'approved', 'review', 'expired', 'cancelled', 'not_approved'] as const;
export type PagePhase = (typeof PAGE_PHASES)[number];

/**
 * The customer's view of a status. Settlement, withdrawal and receipt happen after approval and
 * mean the same to the customer; a payment that left pending for not_approved without a Pix is
 * one whose charge expired, or one the store cancelled.
 */
export function pagePhase(status: PaymentStatus, pixReceived: boolean, cancelled = false): PagePhase {
  switch (status) {
    case 'pending':
      return 'pending';
    case 'review':
      return 'review';
    case 'approved':
    case 'paid':
    case 'withdrawal_processing':
    case 'receipt_sent':
      return 'approved';
    case 'not_approved':
      return pixReceived ? 'not_approved' : cancelled ? 'cancelled' : 'expired';
    case 'rejected':
      return 'not_approved';
  }
}

/** One live update of the page (Server-Sent Events `data`). */
export const PaymentPageUpdateSchema = z.object({ phase: z.enum(PAGE_PHASES), sequence: z.number().int() });
export type PaymentPageUpdate = z.infer<typeof PaymentPageUpdateSchema>;

/** Every text the page shows, in Portuguese for the customer. */
export const PaymentPageTexts = {
  title: 'Pagamento Pix',
  payee: 'Pagamento para',
  amount: 'Valor',
  status: 'Situação',
  phases: {
    pending: 'Aguardando pagamento',
    approved: 'Pagamento aprovado',
    review: 'Pagamento em análise',
    expired: 'Pagamento expirado',
    cancelled: 'Pagamento cancelado',
    not_approved: 'Pagamento não aprovado',
  },
  details: {
    pending: 'Abra o app do seu banco, escolha pagar com Pix e leia o QR Code ou cole o código abaixo.',
    approved: 'Recebemos o seu Pix. Obrigado! Você já pode fechar esta página.',
    review: 'Recebemos o seu Pix e ele está em análise. Esta página se atualiza sozinha.',
    expired: 'O prazo para pagar terminou e este código não vale mais. Peça um novo link de pagamento à loja.',
    cancelled:
      'A loja cancelou este pagamento e este código não vale mais. Se você pagou, o valor será devolvido para a sua conta.',
    not_approved: 'O pagamento não foi aprovado. Se você pagou, o valor será devolvido para a sua conta.',
  },
  qrAlt: 'QR Code Pix deste pagamento',
  code: 'Código Pix copia e cola',
  copy: 'Copiar código Pix',
  copied: 'Código Pix copiado.',
  copyFailed: 'Não foi possível copiar. Selecione o código e copie manualmente.',
  timeLeft: 'Tempo restante para pagar',
  codePending: 'O código Pix ainda está sendo gerado. Atualize esta página em alguns instantes.',
  live: 'Esta página mostra a situação do pagamento em tempo real.',
  notFoundTitle: 'Pagamento não encontrado',
  notFoundDetail: 'Confira se o link está completo, ou peça um novo link à loja.',
  unavailableTitle: 'Página indisponível no momento',
  unavailableDetail: 'Não conseguimos carregar este pagamento agora. Tente novamente em alguns instantes.',
} as const;

/** An amount as Brazilians write it: R$ 1.234,50. */
export function formatBrl(amount: number): string {
  const cents = Math.round(amount * 100);
  const reais = Math.floor(cents / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, '.');
  return `R$ ${reais},${String(cents % 100).padStart(2, '0')}`;
}

import type { PaymentStatus } from './statuses';

/**
 * The merchant's dashboard (`/dashboard` on the gateway): every text it shows, in Portuguese, in
 * one table, so the gateway's views and the browser test read the same words.
 */
export const DashboardTexts = {
  product: 'Painel Pix',
  nav: { payments: 'Pagamentos', disputes: 'Contestações', statement: 'Extrato', webhooks: 'Webhooks', logout: 'Sair' },
  /** The mode the session shows: that of the token it was opened with (docs/decisions/livemode.md). */
  mode: {
    test: 'Dados de teste',
    testDetail:
      'Você está vendo os dados de teste da loja: nenhum dinheiro real se move. Para ver os dados reais, saia e entre com um token pxt_live_.',
    live: 'Dados reais',
    liveDetail:
      'Você está vendo os dados reais da loja. Para ver os dados de teste, saia e entre com um token pxt_test_.',
  },
  login: {
    title: 'Entrar no painel',
    intro:
      'Cole o token de API da sua loja (pxt_…). Ele é conferido uma vez e não fica guardado no navegador: a sessão usa um cookie assinado.',
    tokenLabel: 'Token de API da loja',
    submit: 'Entrar',
    invalid: 'Token inválido ou expirado.',
    storeInactive: 'Esta loja está inativa.',
    sessionEnded: 'Sua sessão terminou. Entre novamente com o token da loja.',
    loggedOut: 'Você saiu do painel.',
  },
  payments: {
    title: 'Pagamentos',
    filterLabel: 'Situação',
    filterAll: 'Todas',
    filterSubmit: 'Filtrar',
    total: (n: number) => (n === 1 ? '1 pagamento' : `${n.toLocaleString('pt-BR')} pagamentos`),
    empty: 'Nenhum pagamento encontrado.',
    columns: { amount: 'Valor', status: 'Situação', createdAt: 'Criado em', email: 'E-mail', webhook: 'Webhook' },
    previous: 'Anterior',
    next: 'Próxima',
    page: (page: number, pages: number) => `Página ${page} de ${pages}`,
  },
  /** The open disputes (MED claims) of the store, each with its deadline and a defence form. */
  disputes: {
    title: 'Contestações',
    intro:
      'Pagadores que contestaram um Pix junto ao banco (MED). O PSP bloqueou o valor em risco até decidir; envie a sua defesa antes do prazo. O PSP aceita uma só defesa por contestação.',
    empty: 'Nenhuma contestação aberta.',
    columns: {
      payment: 'Pagamento',
      amount: 'Valor pago',
      amountAtRisk: 'Valor em risco',
      reason: 'Motivo do pagador',
      deadline: 'Prazo para responder',
    },
    defenseLabel: 'Defesa (até 1000 caracteres)',
    submit: 'Enviar defesa',
    sent: 'Defesa enviada ao PSP.',
    defended: 'Defesa enviada em',
    deadlinePassed: 'O prazo terminou.',
  },
  live: { on: 'Atualização ao vivo', off: 'Reconectando…' },
  webhookStates: {
    none: '—',
    delivered: 'Entregue',
    pending: 'Pendente',
    failing: 'Falhando',
    dead: 'Falhou',
  },
  payment: {
    back: 'Voltar aos pagamentos',
    title: 'Pagamento',
    fields: {
      id: 'ID',
      amount: 'Valor',
      status: 'Situação',
      createdAt: 'Criado em',
      email: 'E-mail',
      observation: 'Observação',
      webhookUrl: 'URL do webhook',
      page: 'Página de pagamento',
      refundedAmount: 'Valor reembolsado',
      expiresAt: 'Expira em',
    },
    openPage: 'Abrir a página de pagamento',
    qrAlt: 'QR Code Pix deste pagamento',
    code: 'Código Pix copia e cola',
    codePending: 'O código Pix ainda não foi gerado.',
    timeline: 'Linha do tempo',
    created: 'Pagamento criado',
    statusChange: (from: string, to: string) => `Situação: ${from} → ${to}`,
    refundEvents: {
      'refund.created': (amount: string) => `Reembolso de ${amount} solicitado`,
      'refund.succeeded': (amount: string) => `Reembolso de ${amount} concluído`,
      'refund.failed': (amount: string) => `Reembolso de ${amount} não realizado`,
      /** refund.created of a devolução the PSP made on its own (a MED return): nobody asked for it. */
      pspCreated: (amount: string) => `Devolução de ${amount} feita pelo PSP`,
    },
    disputeEvents: {
      'payment.dispute_opened': (amount: string) => `Contestação (MED) aberta: ${amount} bloqueados pelo PSP`,
      'payment.dispute_reminder': (hours: number) => `Lembrete: ${hours} h para responder à contestação`,
      'payment.dispute_closed': (decision: string) => `Contestação encerrada: ${decision}`,
    },
    disputeDecisions: {
      accepted: 'aceita (o valor volta ao pagador)',
      rejected: 'rejeitada (o valor fica com a loja)',
      cancelled: 'cancelada',
    },
    noEvents: 'Sem eventos de webhook: este pagamento foi criado sem webhookUrl.',
    attempt: 'Tentativa',
    rerun: (n: number) => `reenvio ${n}`,
    attemptAt: 'Quando',
    httpStatus: 'Resposta',
    duration: 'Duração',
    inFlight: 'em andamento',
    nextRetry: 'Próxima tentativa',
    deliveryStatus: { pending: 'Entrega pendente', delivered: 'Entregue', dead: 'Falhou (sem novas tentativas)' },
    redeliver: 'Reenviar',
    redelivered: (run: number) => `Reenvio iniciado (execução ${run}), com o mesmo webhook-id.`,
    sandbox: 'Sandbox: agir como o cliente e o PSP',
    sandboxIntro: 'Estas ações existem só no sandbox e chamam o PSP de testes como um cliente real faria.',
    sandboxActions: {
      pay: 'Pagar',
      payAmount: 'Pagar outro valor',
      review: 'Pagar e reter para análise',
      clear: 'Liberar análise',
      reject: 'Rejeitar análise',
      payLate: 'Pagar depois (Pix tardio)',
      failNextRefund: 'Recusar o próximo reembolso',
      med: 'Devolução MED (fraude)',
    },
    sandboxLateHint:
      'Pix tardio: um novo Pix mesmo que a cobrança não aceite mais pagamentos; a plataforma o devolve ao pagador.',
    amountLabel: 'Outro valor (R$)',
    answer: 'Resposta',
    networkError: 'Falha de rede. Tente novamente.',
    sending: 'Enviando…',
    refunds: {
      title: 'Reembolsos',
      empty: 'Nenhum reembolso.',
      columns: {
        amount: 'Valor',
        status: 'Situação',
        origin: 'Origem',
        reason: 'Motivo',
        createdAt: 'Solicitado em',
        settledAt: 'Finalizado em',
      },
      statuses: { pending: 'Pendente', succeeded: 'Concluído', failed: 'Não realizado' },
      origins: { merchant: 'Loja', platform: 'Automático', psp: 'PSP' },
      /** Why the PSP returned the money on its own, shown as the refund's reason. */
      natures: { med_fraud: 'MED: fraude', med_operational: 'MED: falha operacional', other: 'Devolução pelo PSP' },
      failureReason: 'Motivo da falha',
    },
    refund: {
      title: 'Reembolsar',
      intro:
        'Devolve ao pagador todo o valor pago ou parte dele, pelo mesmo Pix. Pode haver vários reembolsos parciais.',
      available: 'Disponível para reembolso:',
      amountLabel: 'Valor do reembolso (R$)',
      amountHint: 'Em branco: todo o disponível.',
      reasonLabel: 'Motivo (opcional)',
      reasonHint: 'Até 140 caracteres; o pagador vê no extrato do banco.',
      submit: 'Reembolsar',
      requested: (amount: string) => `Reembolso de ${amount} solicitado.`,
    },
    cancel: {
      title: 'Cancelar pagamento',
      intro: 'O QR Code deixa de aceitar pagamentos e a situação passa a Não aprovado.',
      button: 'Cancelar pagamento',
      confirmTitle: 'Cancelar este pagamento?',
      confirmText:
        'O cliente não poderá mais pagar este QR Code. Um Pix que chegar depois é devolvido automaticamente ao pagador.',
      confirm: 'Sim, cancelar',
      keep: 'Não, manter',
      done: 'Pagamento cancelado.',
    },
  },
  /** The Extrato: a month of the store's statement by day, and its CSV. */
  statement: {
    title: 'Extrato',
    intro:
      'Cada dia do mês com movimento, no horário de Brasília: Pix recebidos, reembolsos, devoluções pelo MED e o líquido. O CSV abre como está no Excel e no LibreOffice.',
    columns: {
      day: 'Dia',
      received: 'Recebido',
      refunded: 'Reembolsado',
      returnedByMed: 'Devolvido (MED)',
      atRisk: 'Em contestação',
      net: 'Líquido',
      movements: 'Movimentos',
      csv: 'CSV',
    },
    total: 'Total do mês',
    empty: 'Nenhum movimento neste mês.',
    csvDay: 'Baixar CSV',
    csvMonth: 'Baixar o CSV do mês',
    months: 'Meses',
    previous: '← Mês anterior',
    next: 'Próximo mês →',
    periodInvalidTitle: 'Período inválido',
    periodInvalid: 'Use um mês AAAA-MM ou um dia AAAA-MM-DD, de 16/11/2020 até hoje (horário de Brasília).',
  },
  webhooks: {
    title: 'Webhooks',
    verifyTitle: 'Como verificar as assinaturas',
    verifyIntro:
      'Cada entrega é assinada no padrão Standard Webhooks com o segredo da sua loja. Verifique o corpo bruto antes de interpretá-lo e descarte repetições pelo webhook-id.',
    headers: { name: 'Cabeçalho', meaning: 'Conteúdo' },
    headerMeanings: {
      'webhook-id': 'ID do evento (evt_…), igual em toda tentativa e reenvio',
      'webhook-timestamp': 'Segundos Unix desta tentativa',
      'webhook-signature': 'v1,<HMAC-SHA256 em base64 de id.timestamp.corpo>, um por segredo vigente',
    },
    secretTitle: 'Segredo de assinatura',
    secretHidden: 'O segredo fica oculto até você pedir para vê-lo.',
    reveal: 'Mostrar segredo',
    secretLabel: 'Segredo (whsec_…)',
    sdkTitle: 'Com o SDK',
    sdkLanguage: 'Linguagem',
    /**
     * The verification in each SDK, as its README shows it (clients/sdk, clients/python,
     * clients/php); the page lets the merchant pick one, TypeScript first.
     */
    sdkSnippets: {
      typescript: {
        label: 'TypeScript',
        code: `import { webhooks } from '@pix-payments/client';

// corpo bruto (Buffer) e cabeçalhos da requisição recebida
const evento = webhooks.verify(corpo, req.headers, process.env.PIX_WEBHOOK_SECRET);
// lança um erro se a assinatura não for válida: responda 400
// depois, responda 2xx rápido e processe sem repetir o mesmo webhook-id`,
      },
      python: {
        label: 'Python',
        code: `import os
from pix_payments import webhooks, WebhookVerificationError

# corpo bruto (bytes) e cabeçalhos da requisição recebida
try:
    evento = webhooks.verify(corpo, cabecalhos, os.environ["PIX_WEBHOOK_SECRET"])
except WebhookVerificationError:
    ...  # assinatura inválida: responda 400
# depois, responda 2xx rápido e processe sem repetir o mesmo webhook-id`,
      },
      php: {
        label: 'PHP',
        code: `use PixPayments\\Exception\\WebhookVerificationException;
use PixPayments\\Webhooks;

// corpo bruto e cabeçalhos da requisição recebida
$corpo = file_get_contents('php://input');
try {
    $evento = Webhooks::verify($corpo, getallheaders(), getenv('PIX_WEBHOOK_SECRET'));
} catch (WebhookVerificationException $e) {
    http_response_code(400); // assinatura inválida
    exit;
}
// depois, responda 2xx rápido e processe sem repetir o mesmo webhook-id ($evento->event diz o tipo)`,
      },
    },
    ratesTitle: 'Falhas de entrega por endpoint (últimas 24 h)',
    ratesColumns: {
      url: 'Endpoint',
      deliveries: 'Eventos',
      delivered: 'Entregues',
      failing: 'Em retentativa',
      dead: 'Falharam',
      attempts: 'Tentativas',
      rate: 'Taxa de falha',
    },
    ratesEmpty: 'Nenhum evento enviado nas últimas 24 horas.',
    ratesTruncated: (n: number) => `Calculado sobre os ${n.toLocaleString('pt-BR')} eventos mais recentes.`,
  },
  errors: {
    notFoundTitle: 'Não encontrado',
    paymentNotFound: 'Pagamento não encontrado.',
    unavailableTitle: 'Indisponível no momento',
    rateLimitedTitle: 'Muitas requisições',
    forbidden: 'Requisição recusada: recarregue a página e tente novamente.',
    streamsFull: 'Muitas conexões ao vivo abertas; tente novamente em instantes.',
  },
  timezoneNote: 'Horários de Brasília (America/Sao_Paulo); passe o mouse para ver em UTC.',
} as const;

/** A status as the merchant reads it. */
export const StatusLabels: Record<PaymentStatus, string> = {
  pending: 'Pendente',
  approved: 'Aprovado',
  review: 'Em análise',
  not_approved: 'Não aprovado',
  paid: 'Pago',
  withdrawal_processing: 'Saque em processamento',
  receipt_sent: 'Comprovante enviado',
  rejected: 'Rejeitado',
};

/** How a payment's webhooks stand, from its deliveries (worst first): what the list's column shows. */
export const PAYMENT_WEBHOOK_STATES = ['failing', 'dead', 'pending', 'delivered'] as const;
export type PaymentWebhookState = (typeof PAYMENT_WEBHOOK_STATES)[number];

import { paymentDetail } from './payment-detail';
import { paymentsList } from './payments-list';

/**
 * The dashboard's script (bundled by build-browser.mjs). It keeps the list and a payment's page
 * live from the store's event stream, refreshes a payment's timeline after an event, an action or
 * a due retry (the delivery log is the dispatcher's; nothing here polls it on a timer of its own)
 * and its refunds after a refund's event, and sends the actions (refund, cancel, sandbox,
 * Reenviar) with the session's CSRF token. Every text from the server goes in as text.
 */
const page = document.body.dataset.page;
if (page === 'payments') paymentsList();
if (page === 'payment') paymentDetail();

/**
 * The delivery log in MongoDB, the only part of the dispatcher that touches the database (eslint
 * keeps mongoose out of the rest): what it holds (records.ts), the attempt protocol's writes
 * (delivery-log.ts) and what its readers read (reads.ts).
 */
export { attemptId, type AttemptEntry, type DeliveryDoc } from './records';
export { holdsLaterEvents } from './documents';
export {
  DeliveryLog,
  type AttemptResult,
  type AttemptTarget,
  type Claim,
  type Conclusion,
  type Concluded,
  type DeliveryLogProtocol,
  type DeliveryLogSettings,
  type EarlierDeliveries,
  someNotRecorded,
} from './delivery-log';
export {
  deliveriesOf,
  deliveriesOfPayments,
  findDelivery,
  findStoreDelivery,
  storeDeliveries,
  storeDeliveriesSince,
  type DeliverySummary,
} from './reads';

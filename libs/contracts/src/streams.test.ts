import { EVENT_TYPES } from './events';
import { Consumers } from './streams';
import { subjectMatches, Subjects } from './subjects';

describe("the dispatcher's consumer of payment events", () => {
  const filters: readonly string[] = Consumers.dispatcherPayments.filterSubjects;
  const takes = (subject: string) => filters.filter((filter) => subjectMatches(filter, subject)).length;

  it('takes each event of a payment with a webhookUrl once, and none of a payment without', () => {
    for (const type of EVENT_TYPES) {
      expect([type, takes(Subjects.paymentEvent(type, true)), takes(Subjects.paymentEvent(type, false))]).toEqual([
        type,
        1,
        0,
      ]);
    }
  });

  it('still takes the events published before subjects told them apart', () => {
    for (const subject of [
      'payments.events.created',
      'payments.events.status_changed',
      'payments.events.refund_failed',
    ]) {
      expect([subject, takes(subject)]).toEqual([subject, 1]);
    }
  });
});

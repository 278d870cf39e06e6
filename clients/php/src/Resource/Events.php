<?php

declare(strict_types=1);

namespace PixPayments\Resource;

use PixPayments\Http\Api;
use PixPayments\Model\Event;
use PixPayments\Model\EventDetail;
use PixPayments\Model\EventList;
use PixPayments\Model\EventRedelivery;

/** The store's webhook events and their deliveries: $client->events. */
final class Events
{
    /** @internal built by Client */
    public function __construct(private readonly Api $api)
    {
    }

    /**
     * One page of the store's events, newest first.
     *
     * @param array{type?: ?string, paymentId?: ?string, page?: ?int, limit?: ?int} $query
     */
    public function list(array $query = []): EventList
    {
        return EventList::fromArray($this->api->request('GET', Api::V1 . '/events', $query));
    }

    /**
     * Every event matching the query, page after page, each asked for when the iteration reaches it.
     *
     * @param array{type?: ?string, paymentId?: ?string, limit?: ?int} $query
     * @return \Generator<int, Event, mixed, void>
     */
    public function listAll(array $query = []): \Generator
    {
        return Pages::walk(fn (array $q) => $this->list($q), $query);
    }

    /** One event with every delivery attempt. */
    public function get(string $eventId): EventDetail
    {
        return EventDetail::fromArray($this->api->request('GET', Api::V1 . '/events/' . Api::segment($eventId)));
    }

    /** Delivers a delivered or dead event again with the same webhook-id (409 while it is still being retried). */
    public function redeliver(string $eventId): EventRedelivery
    {
        return EventRedelivery::fromArray(
            $this->api->request('POST', Api::V1 . '/events/' . Api::segment($eventId) . '/redeliver'),
        );
    }
}

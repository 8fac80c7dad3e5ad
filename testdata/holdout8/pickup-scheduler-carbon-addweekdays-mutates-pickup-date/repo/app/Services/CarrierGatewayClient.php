<?php

namespace App\Services;

use Illuminate\Support\Facades\Http;

class CarrierGatewayClient
{
    public function __construct(private readonly string $baseUrl, private readonly string $token)
    {
    }

    /** @return array{booking_ref: string, carrier: string} */
    public function bookPickup(array $payload): array
    {
        return Http::baseUrl($this->baseUrl)
            ->withToken($this->token)
            ->timeout(20)
            ->acceptJson()
            ->post('/v1/pickups', $payload)
            ->throw()
            ->json();
    }
}

<?php

declare(strict_types=1);

namespace App\Service;

use Symfony\Contracts\HttpClient\HttpClientInterface;

final class AddressLookupClient
{
    private const TIMEOUT_SECONDS = 3.0;

    public function __construct(private readonly HttpClientInterface $addressLookup)
    {
    }

    /** @return list<array{uprn: string, label: string}> */
    public function search(string $postcode): array
    {
        $response = $this->addressLookup->request('GET', '/v2/addresses', [
            'query' => ['postcode' => strtoupper(trim($postcode))],
            'timeout' => self::TIMEOUT_SECONDS,
        ]);

        return $response->toArray()['results'] ?? [];
    }
}

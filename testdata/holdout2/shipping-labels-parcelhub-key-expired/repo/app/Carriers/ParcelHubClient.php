<?php

namespace App\Carriers;

use App\Models\Shipment;
use GuzzleHttp\Client;

class ParcelHubClient implements CarrierClient
{
    private Client $http;

    public function __construct()
    {
        $this->http = new Client([
            'base_uri' => config('services.parcelhub.base_uri'),
            'timeout' => config('services.parcelhub.timeout'),
            'headers' => [
                'X-Api-Key' => config('services.parcelhub.api_key'),
                'X-Account' => config('services.parcelhub.account_id'),
                'Accept' => 'application/json',
            ],
        ]);
    }

    public function createLabel(Shipment $shipment): Label
    {
        $response = $this->http->post('labels', [
            'json' => ParcelHubPayload::fromShipment($shipment),
        ]);
        $body = json_decode((string) $response->getBody(), true, flags: JSON_THROW_ON_ERROR);

        return new Label($body['tracking_number'], base64_decode($body['label_pdf']), 'parcelhub');
    }
}

<?php

return [

    'postmark' => [
        'token' => env('POSTMARK_TOKEN'),
    ],

    'parcelhub' => [
        'api_key' => env('PARCELHUB_API_KEY', env('PARCELHUB_KEY')),
        'account_id' => env('PARCELHUB_ACCOUNT_ID', env('PARCELHUB_ACCOUNT')),
        'base_uri' => env('PARCELHUB_BASE_URI', 'https://api.parcelhub.eu/v2/'),
        'timeout' => (float) env('PARCELHUB_TIMEOUT', 10),
    ],

    'dhl' => [
        'client_id' => env('DHL_CLIENT_ID'),
        'client_secret' => env('DHL_CLIENT_SECRET'),
        'url' => env('DHL_API_URL', 'https://api-eu.dhl.com/parcel/de/shipping/v2/'),
    ],

];

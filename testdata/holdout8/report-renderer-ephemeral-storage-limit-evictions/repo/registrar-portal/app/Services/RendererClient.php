<?php

namespace App\Services;

use Illuminate\Support\Facades\Http;

class RendererClient
{
    public function __construct(private readonly string $baseUrl, private readonly int $timeout)
    {
    }

    public function transcript(array $student, ?string $watermark = null): string
    {
        $response = Http::baseUrl($this->baseUrl)
            ->timeout($this->timeout)
            ->retry(2, 500, throw: true)
            ->post('/render/transcript', ['student' => $student, 'watermark' => $watermark]);

        return hex2bin($response->json('pdf_base64'));
    }

    public function cohortArchive(string $cohortId, array $students): string
    {
        return Http::baseUrl($this->baseUrl)
            ->timeout(1800)
            ->post('/render/cohort-archive', ['cohort_id' => $cohortId, 'students' => $students])
            ->throw()
            ->json('object');
    }
}

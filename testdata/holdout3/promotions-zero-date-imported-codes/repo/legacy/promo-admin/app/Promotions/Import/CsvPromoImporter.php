<?php

namespace App\Promotions\Import;

use Illuminate\Support\Facades\DB;
use Illuminate\Support\Facades\Log;

/**
 * Bulk import of promo codes from a marketing CSV (code, type, value, min_total, starts_at, ends_at, max_redemptions).
 * Runs on the legacy admin's "promotions_rw" connection.
 */
class CsvPromoImporter
{
    public function import(string $path, string $campaign, string $batch, string $user): ImportReport
    {
        $report = new ImportReport($batch);
        foreach ($this->rows($path) as $row) {
            DB::connection('promotions_rw')->table('promo_codes')->insert([
                'code' => strtoupper(trim($row['code'])),
                'discount_type' => $row['type'],
                'discount_value' => $row['value'],
                'min_cart_total' => $row['min_total'] ?: null,
                'starts_at' => $row['starts_at'],
                'ends_at' => $row['ends_at'],
                'max_redemptions' => $row['max_redemptions'] ?: null,
                'campaign' => $campaign,
                'import_batch' => $batch,
            ]);
            $report->inserted++;
        }
        Log::info("import {$batch} finished", ['inserted' => $report->inserted, 'rejected' => $report->rejected, 'user' => $user, 'file' => basename($path)]);
        return $report;
    }
}

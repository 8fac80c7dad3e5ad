<?php

declare(strict_types=1);

namespace App\Imports;

use App\Models\SupplierPrice;
use Illuminate\Support\Facades\Log;
use League\Flysystem\FilesystemOperator;

final class SupplierPriceImporter
{
    private const REQUIRED = ['sku', 'ean', 'net_price', 'currency', 'valid_from'];
    private const LOGGED_FAILURES = 5;

    public function __construct(private FilesystemOperator $feeds)
    {
    }

    public function import(string $supplier, string $path): ImportResult
    {
        $stream = $this->feeds->readStream($path);
        $header = fgetcsv($stream, separator: ';');
        $missing = array_diff(self::REQUIRED, $header);
        if ($missing !== []) {
            Log::warning('Supplier feed header is missing required columns', [
                'supplier' => $supplier, 'file' => $path, 'missing' => array_values($missing), 'header' => $header,
            ]);
        }
        $result = new ImportResult($supplier, $path);
        $line = 1;
        while (($cols = fgetcsv($stream, separator: ';')) !== false) {
            $line++;
            $row = array_combine($header, $cols);
            try {
                SupplierPrice::upsertFromFeed($this->toPrice($supplier, $row));
                $result->imported++;
            } catch (\Throwable $e) {
                $result->failed++;
                if ($result->failed <= self::LOGGED_FAILURES) {
                    Log::error('Row import failed', ['supplier' => $supplier, 'line' => $line, 'exception' => $e]);
                }
            }
        }
        return $result;
    }

    private function toPrice(string $supplier, array $row): PriceRow
    {
        return new PriceRow(
            supplier: $supplier,
            sku: trim($row['sku']),
            ean: $row['ean'],
            netPriceCents: (int) round(((float) str_replace(',', '.', $row['net_price'])) * 100),
            currency: strtoupper($row['currency']),
            validFrom: new \DateTimeImmutable($row['valid_from']),
        );
    }
}

<?php

declare(strict_types=1);

namespace App\Console\Commands;

use App\Imports\SupplierPriceImporter;
use Illuminate\Console\Command;
use Illuminate\Support\Facades\Log;
use Illuminate\Support\Facades\Storage;

final class ImportSupplierPrices extends Command
{
    protected $signature = 'catalog:import-supplier-prices {--all}';

    public function handle(SupplierPriceImporter $importer): int
    {
        $status = self::SUCCESS;
        foreach (config('feeds.suppliers') as $supplier => $cfg) {
            foreach (Storage::disk('feeds')->files("incoming/{$supplier}") as $path) {
                Log::info('Importing supplier feed', ['supplier' => $supplier, 'file' => $path, 'bytes' => Storage::disk('feeds')->size($path)]);
                $result = $importer->import($supplier, $path);
                if ($result->imported === 0 && $result->failed > 0) {
                    Log::error('Supplier feed import failed', $result->toArray());
                    $status = self::FAILURE;
                    continue;
                }
                Log::info('Supplier feed imported', $result->toArray());
                Storage::disk('feeds')->move($path, str_replace('incoming/', 'processed/', $path));
            }
        }
        return $status;
    }
}

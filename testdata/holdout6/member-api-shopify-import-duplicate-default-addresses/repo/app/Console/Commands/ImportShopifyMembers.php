<?php

namespace App\Console\Commands;

use App\Models\Address;
use App\Models\Member;
use Illuminate\Console\Command;

class ImportShopifyMembers extends Command
{
    protected $signature = 'members:import-shopify {file}';

    public function handle(): int
    {
        $rows = $this->readCsv($this->argument('file'));
        $count = 0;
        foreach ($rows as $row) {
            $member = Member::where('email', strtolower($row['email']))->first();
            if ($member === null) {
                continue;
            }
            Address::create([
                'member_id' => $member->id,
                'line1' => $row['address1'],
                'line2' => $row['address2'] ?: null,
                'city' => $row['city'],
                'postcode' => $row['zip'],
                'country' => $row['country_code'],
                'is_default' => true,
                'source' => 'shopify',
            ]);
            $count++;
        }
        $this->info("imported {$count} addresses (is_default=1)");

        return self::SUCCESS;
    }
}

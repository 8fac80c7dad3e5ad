<?php

namespace App\Jobs;

use App\Carriers\CarrierRegistry;
use App\Models\Shipment;
use Illuminate\Bus\Queueable;
use Illuminate\Contracts\Queue\ShouldQueue;
use Illuminate\Foundation\Bus\Dispatchable;
use Illuminate\Queue\InteractsWithQueue;
use Illuminate\Support\Facades\Log;
use Throwable;

class CreateShipmentLabel implements ShouldQueue
{
    use Dispatchable, InteractsWithQueue, Queueable;

    public int $tries = 8;

    public function __construct(public Shipment $shipment)
    {
        $this->onQueue('labels');
    }

    /** Retry with growing pauses: carriers rate-limit bursts after the nightly batch. */
    public function backoff(): array
    {
        return [60, 300, 900, 1800, 3600];
    }

    public function handle(CarrierRegistry $carriers): void
    {
        $client = $carriers->for($this->shipment->carrier);
        try {
            $label = $client->createLabel($this->shipment);
        } catch (Throwable $e) {
            Log::error('Label creation failed', [
                'order' => $this->shipment->order_number,
                'carrier' => $this->shipment->carrier,
                'attempt' => $this->attempts(),
                'exception' => $e,
            ]);
            throw $e;
        }
        $this->shipment->attachLabel($label);
    }
}

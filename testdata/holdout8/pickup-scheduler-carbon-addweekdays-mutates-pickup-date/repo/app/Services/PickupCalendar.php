<?php

namespace App\Services;

use App\Models\Depot;
use Illuminate\Support\Carbon;
use Illuminate\Support\Facades\Cache;

class PickupCalendar
{
    /**
     * The first day on or after $from on which both the depot and the
     * carrier collect (weekends, public holidays, depot closures).
     */
    public function nextPickupDay(Carbon $from, Depot $depot, string $carrier): Carbon
    {
        $closed = Cache::remember(
            "pickup-closures:{$depot->id}:{$carrier}",
            now()->addHour(),
            fn () => $depot->closures()->forCarrier($carrier)->pluck('date')->map->toDateString()->all(),
        );

        $day = $from->copy();
        while ($day->isWeekend() || in_array($day->toDateString(), $closed, true)) {
            $day->addDay();
        }

        return $day;
    }
}

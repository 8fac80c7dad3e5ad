<?php

namespace App\Jobs;

use App\Models\Cohort;
use App\Services\RendererClient;
use Illuminate\Bus\Queueable;
use Illuminate\Contracts\Queue\ShouldQueue;
use Illuminate\Foundation\Bus\Dispatchable;
use Illuminate\Queue\InteractsWithQueue;
use Illuminate\Support\Facades\Log;

class ExportCohortTranscripts implements ShouldQueue
{
    use Dispatchable, InteractsWithQueue, Queueable;

    public int $tries = 4;

    public int $timeout = 1900;

    public function __construct(public int $cohortId)
    {
        $this->onQueue('exports');
    }

    public function handle(RendererClient $renderer): void
    {
        $cohort = Cohort::with('students.enrolments.course')->findOrFail($this->cohortId);
        $students = $cohort->students->map->toTranscriptArray()->all();

        Log::info('cohort export sent to renderer', ['cohort' => $cohort->code, 'students' => count($students), 'attempt' => $this->attempts()]);
        $object = $renderer->cohortArchive($cohort->code, $students);

        $cohort->update(['export_object' => $object, 'exported_at' => now()]);
        Log::info('cohort export finished', ['cohort' => $cohort->code, 'object' => $object]);
    }
}

<?php

use Illuminate\Database\Migrations\Migration;
use Illuminate\Database\Schema\Blueprint;
use Illuminate\Support\Facades\Schema;

return new class extends Migration {
    public function up(): void
    {
        Schema::create('addresses', function (Blueprint $table) {
            $table->id();
            $table->foreignId('member_id')->constrained();
            $table->string('line1');
            $table->string('line2')->nullable();
            $table->string('city');
            $table->string('postcode', 16);
            $table->char('country', 2);
            $table->boolean('is_default')->default(false);
            $table->string('source', 16)->default('app');
            $table->timestamps();
            $table->index(['member_id', 'is_default']);
        });
    }
};

<?php

namespace App\Http\Controllers;

class TastingNotesController extends Controller
{
    public const PER_PAGE = 20;
}

@extends('layouts.app')

@section('content')
<form method="POST" action="{{ route('transcripts.store') }}">
    @csrf
    <label for="recipient">Send to</label>
    <select id="recipient" name="recipient">
        <option value="self">Download for myself</option>
        <option value="institution">Another institution</option>
        <option value="email">An email address</option>
    </select>
    <label for="delivery_email">Delivery email (optional)</label>
    <input type="email" id="delivery_email" name="delivery_email" value="{{ old('delivery_email') }}">
    <label><input type="checkbox" name="official" value="1"> Official (watermarked) copy</label>
    <button type="submit">Request transcript</button>
</form>
@endsection

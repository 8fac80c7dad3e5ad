<?php

return [
    'suppliers' => [
        'brenner' => ['name' => 'Brenner Werkzeuge GmbH', 'schedule' => 'daily 06:00'],
        'hoffmann' => ['name' => 'Hoffmann Baubedarf KG', 'schedule' => 'hourly'],
        'kessler' => ['name' => 'Kessler Sanitär', 'schedule' => 'daily 02:00'],
        'nordbau' => ['name' => 'Nordbau Handel', 'schedule' => 'hourly'],
    ],
];

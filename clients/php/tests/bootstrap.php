<?php

declare(strict_types=1);

// The package as a merchant without Composer loads it, plus the tests' own helpers.
require __DIR__ . '/../autoload.php';
require __DIR__ . '/FakeTransport.php';
require __DIR__ . '/Fixtures.php';

<?php

declare(strict_types=1);

// For a plain `require 'autoload.php'` without Composer: the same PSR-4 mapping composer.json declares.
spl_autoload_register(static function (string $class): void {
    $prefix = 'PixPayments\\';
    if (strncmp($class, $prefix, strlen($prefix)) !== 0) {
        return;
    }
    $file = __DIR__ . '/src/' . str_replace('\\', '/', substr($class, strlen($prefix))) . '.php';
    if (is_file($file)) {
        require $file;
    }
});

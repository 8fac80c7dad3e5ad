package main

const smtpTimeoutSeconds = 20

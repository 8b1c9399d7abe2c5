// libFuzzer's entry for a program that has a main of its own (compiler-rt's FuzzerInterface.h).
// SwiftPM links an executable target's main.swift as its `main`, so each fuzz target's
// main.swift hands its test function to this driver instead of linking libFuzzer's main.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*test_one_input)(const uint8_t *data, size_t size));

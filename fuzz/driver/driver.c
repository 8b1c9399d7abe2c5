// Nothing to compile: fuzz_driver.h declares what -sanitize=fuzzer links in.

// The SDK's entry point (issue 33): being built.
export {};

# A stand-in for an installed PyTorch: only what scripts/torch-headers.sh asks
# of it (test/cli/torch-headers-lookup.test).

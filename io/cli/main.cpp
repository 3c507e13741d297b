#include "io/cli/cli.hpp"

int main(int argc, char** argv) { return chainsaw::cli_main(argc, argv); }

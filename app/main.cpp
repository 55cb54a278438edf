#include "app/cli/cli.h"

int main(int argc, char** argv) { return circles::run_cli(argc, argv); }

#ifndef FLINCH_VERSION_H
#define FLINCH_VERSION_H
#define FLINCH_VERSION "0.1.0"
#endif

// Debian's libsqlite3-dev (apt-get install libsqlite3-dev): the replica's local database on Linux.
// Apple platforms use the system's SQLite3 module instead (StrataClient imports it there).
#include <sqlite3.h>

// A prepared SQLite statement that finalises itself; binds by 1-based index. Shared by the
// job store and its schema migrations.
#pragma once

#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <string>

namespace tc::daemon {

// The SQL both engines share is written with PostgreSQL's "$1". SQLite numbers "$1" by first
// appearance; "?1" is parameter 1 wherever it stands.
inline std::string sqlite_sql(std::string sql) {
  std::replace(sql.begin(), sql.end(), '$', '?');
  return sql;
}

class Statement {
 public:
  Statement(sqlite3* db, const std::string& sql) {
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt_, nullptr) != SQLITE_OK) stmt_ = nullptr;
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  bool ok() const { return stmt_ != nullptr; }
  void bind(int i, int64_t v) { sqlite3_bind_int64(stmt_, i, v); }
  void bind(int i, const std::string& v) {
    sqlite3_bind_text(stmt_, i, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  }
  void bind_null(int i) { sqlite3_bind_null(stmt_, i); }
  // Named apart: an int argument would find bind(int64_t) and bind(double) equally good.
  void bind_double(int i, double v) { sqlite3_bind_double(stmt_, i, v); }
  void reset() { sqlite3_reset(stmt_); }
  // SQLITE_ROW, SQLITE_DONE or an error code.
  int step() { return sqlite3_step(stmt_); }
  int64_t int_at(int i) { return sqlite3_column_int64(stmt_, i); }
  double double_at(int i) { return sqlite3_column_double(stmt_, i); }
  std::string text_at(int i) {
    const unsigned char* text = sqlite3_column_text(stmt_, i);
    return text ? reinterpret_cast<const char*>(text) : "";
  }

 private:
  sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace tc::daemon

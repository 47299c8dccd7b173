package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCourseDir(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		template, base, want string
	}{
		{DefaultCoursesDir, ".", "courses/demo"},
		{DefaultCoursesDir, "proj", "proj/courses/demo"},
		{"courses", ".", "courses/demo"}, // a parent folder, no placeholder
		{"deploy/{course}/llm", "p", "p/deploy/demo/llm"},
		{"/abs/{course}", "p", "/abs/demo"},
	} {
		if got := CourseDir(tc.template, tc.base, "demo"); got != filepath.FromSlash(tc.want) {
			t.Errorf("CourseDir(%q, %q) = %q, want %q", tc.template, tc.base, got, tc.want)
		}
	}
}

func TestFindCourseAndEndpointName(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	courses := filepath.Join(base, "courses")
	writeFile(t, filepath.Join(courses, "ok", "data", "state.json"), `{"endpoint_name": " ep-1 ", "other": 1}`)
	writeFile(t, filepath.Join(courses, "nokey", "data", "state.json"), `{"model_name": "m"}`)
	writeFile(t, filepath.Join(courses, "emptykey", "data", "state.json"), `{"endpoint_name": ""}`)
	writeFile(t, filepath.Join(courses, "numkey", "data", "state.json"), `{"endpoint_name": 7}`)
	writeFile(t, filepath.Join(courses, "badjson", "data", "state.json"), `endpoint_name: x`)
	writeFile(t, filepath.Join(courses, "file"), "not a folder")
	if err := os.MkdirAll(filepath.Join(courses, "undeployed"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(courses, ".hidden"), 0o755); err != nil {
		t.Fatal(err)
	}

	c, err := FindCourse(DefaultCoursesDir, base, "ok")
	if err != nil {
		t.Fatal(err)
	}
	if c.DataDir() != filepath.Join(courses, "ok", "data") {
		t.Errorf("DataDir = %q", c.DataDir())
	}
	name, err := c.EndpointName()
	if err != nil || name != "ep-1" {
		t.Errorf("EndpointName = %q, %v; want ep-1", name, err)
	}

	// Every way to fail names the course and says what to do.
	for _, tc := range []struct{ course, want string }{
		{"missing", `course "missing" not found: no folder ` + filepath.Join(courses, "missing") + " (courses: badjson, emptykey, nokey, numkey, ok, undeployed)"},
		{"file", `course "file": ` + filepath.Join(courses, "file") + " is not a folder"},
		{"../x", `--course "../x": want a course folder name`},
		{"", `--course "": want a course folder name`},
	} {
		_, err := FindCourse(DefaultCoursesDir, base, tc.course)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("FindCourse(%q) = %v\nwant prefix %s", tc.course, err, tc.want)
		}
	}
	for _, tc := range []struct{ course, want string }{
		{"undeployed", `course "undeployed" has no state file ` + filepath.Join(courses, "undeployed", "data", "state.json") + ": deploy the course first (the course's deploy step writes it when it creates the SageMaker endpoint), or pass --endpoint-name"},
		{"nokey", `course "nokey": state file ` + filepath.Join(courses, "nokey", "data", "state.json") + " has no endpoint_name (the course's deploy step writes it"},
		{"emptykey", `course "emptykey": state file ` + filepath.Join(courses, "emptykey", "data", "state.json") + " has an empty endpoint_name"},
		{"numkey", `course "numkey": state file ` + filepath.Join(courses, "numkey", "data", "state.json") + ": endpoint_name is not a string"},
		{"badjson", `course "badjson": state file ` + filepath.Join(courses, "badjson", "data", "state.json") + " is not a JSON object"},
	} {
		c, err := FindCourse(DefaultCoursesDir, base, tc.course)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.EndpointName()
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("EndpointName(%q) = %v\nwant prefix %s", tc.course, err, tc.want)
		}
	}
}

func TestCoursesTemplate(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	writeFile(t, filepath.Join(base, "deploy", "a", "llm", "x"), "")
	writeFile(t, filepath.Join(base, "deploy", "b", "other", "x"), "") // no llm/ folder: not a course
	got := strings.Join(Courses("deploy/{course}/llm", base), ",")
	if got != "a" {
		t.Errorf("Courses = %q, want a", got)
	}
	if c := Courses(DefaultCoursesDir, filepath.Join(base, "none")); c != nil {
		t.Errorf("Courses in an empty place = %q", c)
	}
}

// TestOpen: the file and the course are found together: the course under
// the file's courses_dir beside the file, or under courses/ here without
// one.
func TestOpen(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "p", "config.yaml"), "courses_dir: deploy/{course}\nbenchmark:\n  num_prompts: 3\n")
	writeFile(t, filepath.Join(dir, "p", "deploy", "c1", "README"), "")
	writeFile(t, filepath.Join(dir, "courses", "c2", "README"), "")
	t.Chdir(dir)
	for _, tc := range []struct {
		path, course string
		find         bool
		wantFile     bool
		wantDir, err string
	}{
		{"", "", false, false, "", ""},
		{"p/config.yaml", "", false, true, "", ""},
		{"p/config.yaml", "c1", true, true, "p/deploy/c1", ""},
		{"", "c2", true, false, "courses/c2", ""},
		{"p/config.yaml", "c2", true, false, "", `course "c2" not found: no folder p/deploy/c2 (courses: c1)`},
		{"", "", true, false, "", `--course "": want a course folder name`},
		{"missing.yaml", "c2", true, false, "", "config file missing.yaml not found"},
	} {
		f, c, err := Open(tc.path, testSchema, tc.find, tc.course)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%+v: error %v, want %q", tc, err, tc.err)
			}
			continue
		}
		if err != nil || (f != nil) != tc.wantFile || (c != nil) != (tc.wantDir != "") || c != nil && c.Dir != tc.wantDir {
			t.Errorf("%+v: file %v, course %+v, %v", tc, f, c, err)
		}
	}
}

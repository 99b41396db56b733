import javax.tools.*;
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.util.*;

/** The Java compile server (data_builders/execution/compile_server.py): compiles one build
 *  folder per input line (its *.java into classes/, annotation processing off) and answers
 *  "ok N" or "error N", a newline, then N bytes (UTF-8) of diagnostics. */
public class UniceJavac {
    public static void main(String[] args) throws Exception {
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, "UTF-8");
        String classpath = args.length > 0 ? args[0] : "";
        String line;
        while ((line = in.readLine()) != null) {
            File dir = new File(line.trim());
            File[] sources = dir.listFiles((d, name) -> name.endsWith(".java"));
            StringWriter log = new StringWriter();
            boolean ok = false;
            try (StandardJavaFileManager files = compiler.getStandardFileManager(null, null, StandardCharsets.UTF_8)) {
                new File(dir, "classes").mkdirs();
                List<String> options = Arrays.asList("-nowarn", "-proc:none", "-encoding", "UTF-8",
                        "-cp", classpath, "-d", new File(dir, "classes").getPath());
                ok = compiler.getTask(log, files, null, options, null,
                        files.getJavaFileObjects(sources == null ? new File[0] : sources)).call();
            } catch (Throwable e) {
                log.write(e.toString());
            }
            byte[] text = log.toString().getBytes(StandardCharsets.UTF_8);
            out.write(((ok ? "ok " : "error ") + text.length + "\n").getBytes(StandardCharsets.UTF_8));
            out.write(text);
            out.flush();
        }
    }
}
